import { searchIndexSuite } from './search-index.suite';

describe('registry indexes on the Postgres server', () => searchIndexSuite(true));
