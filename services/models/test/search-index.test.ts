import { searchIndexSuite } from './search-index.suite';

describe('registry indexes on PGlite', () => searchIndexSuite(false));
