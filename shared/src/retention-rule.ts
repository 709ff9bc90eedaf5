/**
 * What a retention rule is: the job that runs rules is retention.ts; the modules that own a
 * kind of row (outbox.ts, idempotency.ts, a service's own tables) declare its rule with these.
 */
import type { DependentTable } from './partitions';

/** One kind of row removed by age. */
export interface RetentionRule {
  /** What is removed, as operators read it: `relayed events`, `dead letters`. */
  name: string;
  /** Schema-qualified table. */
  table: string;
  /** Columns that name one row. */
  key: string[];
  /** The time a row's age counts from; an index on it keeps each batch short. */
  ageColumn: string;
  /** Further SQL condition a removable row meets (a dead letter: `state = 'dead'`). */
  where?: string;
  keepMs: number;
  /** Tables whose rows belong to these rows: removed in the same statement, vacuumed with it. */
  dependents?: DependentTable[];
}

/** A table whose oldest row the storage figures show: its time column, found through `orderBy`'s index. */
export interface AgedTable {
  table: string;
  column: string;
  orderBy: string;
}
