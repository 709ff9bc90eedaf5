/** search-cases against a plain reference query on the Postgres server; see `case-search.suite.ts`. */
import { caseSearchSuite } from './case-search.suite';

caseSearchSuite(true);
