/** invoices/find against a plain reference query on the Postgres server; see `find.property.suite.ts`. */
import { findPropertySuite } from './find.property.suite';

findPropertySuite(true);
