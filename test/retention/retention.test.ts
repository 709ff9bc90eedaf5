/** The retention policy on the embedded database; see `retention.suite.ts`. */
import { retentionSuite } from './retention.suite';

retentionSuite(false);
