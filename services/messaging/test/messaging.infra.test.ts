/** Case messages on the Postgres server with NATS and Redis; see `messaging.suite.ts`. */
import { messagingSuite } from './messaging.suite';

messagingSuite(true);
