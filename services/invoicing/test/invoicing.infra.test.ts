/** Invoices on the Postgres server with NATS and Redis; see `invoicing.suite.ts`. */
import { invoicingSuite } from './invoicing.suite';

invoicingSuite(true);
