/** invoices/find against a plain reference query on the embedded database; see `find.property.suite.ts`. */
import { findPropertySuite } from './find.property.suite';

findPropertySuite(false);
