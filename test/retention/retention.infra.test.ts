/** The retention policy on the Postgres server with NATS and Redis; see `retention.suite.ts`. */
import { retentionSuite } from './retention.suite';

retentionSuite(true);
