/** search-cases against a plain reference query on the embedded database; see `case-search.suite.ts`. */
import { caseSearchSuite } from './case-search.suite';

caseSearchSuite(false);
