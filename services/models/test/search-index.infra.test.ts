import { searchIndexSuite } from './search-index';

describe('registry indexes on the Postgres server', () => searchIndexSuite(true));
