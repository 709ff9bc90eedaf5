/** Partitioned deliveries on the Postgres server; see `partitions.suite.ts`. */
import { partitionsSuite } from './partitions.suite';

partitionsSuite(true);
