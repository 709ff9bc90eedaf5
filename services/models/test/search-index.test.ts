import { searchIndexSuite } from './search-index';

describe('registry indexes on PGlite', () => searchIndexSuite(false));
