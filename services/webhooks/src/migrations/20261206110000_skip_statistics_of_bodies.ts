import type { Knex } from 'knex';
import { setStatisticsTargets } from '@hub/shared';
import { EVENT_TABLE_STATISTICS_TARGET } from './20261203100000_sample_event_tables_lightly';

/**
 * ANALYZE keeps no statistics of the event tables' bodies and error texts: no query filters,
 * joins or sorts on them, and their values (a webhook's whole payload) are the costliest of each
 * sampled row to compare. On the embedded database ANALYZE runs on the one session every request
 * waits for (embedded-autovacuum.ts): a deliveries partition of 24,000 rows analyzed in 20 to 23
 * ms with them and 15 to 16 without, and the event feed's came under 10. Partitions made later
 * take their table's targets (partitions.ts).
 */
const UNSAMPLED_COLUMNS: Record<string, string[]> = {
  'webhooks.deliveries': ['payload', 'last_error'],
  'webhooks.attempts': ['error', 'response_excerpt'],
  'webhooks.feed': ['payload'],
};

export async function up(knex: Knex): Promise<void> {
  await setTargets(knex, 0);
}

export async function down(knex: Knex): Promise<void> {
  await setTargets(knex, EVENT_TABLE_STATISTICS_TARGET);
}

async function setTargets(knex: Knex, target: number): Promise<void> {
  for (const [table, columns] of Object.entries(UNSAMPLED_COLUMNS))
    await setStatisticsTargets(knex, table, new Map(columns.map((column) => [column, target])));
}
