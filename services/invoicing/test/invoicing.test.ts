/** Invoices on the embedded database; see `invoicing.suite.ts`. */
import { invoicingSuite } from './invoicing.suite';

invoicingSuite(false);
