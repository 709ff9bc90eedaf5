/** Partitioned deliveries on the embedded database; see `partitions.suite.ts`. */
import { partitionsSuite } from './partitions.suite';

partitionsSuite(false);
