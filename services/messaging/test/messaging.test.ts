/** Case messages on the embedded database; see `messaging.suite.ts`. */
import { messagingSuite } from './messaging.suite';

messagingSuite(false);
