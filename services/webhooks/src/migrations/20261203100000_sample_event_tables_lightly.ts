import type { Knex } from 'knex';
import { setStatisticsTargets, statisticsTargetsOf } from '@hub/shared';

/**
 * Deliveries, their attempts and the event feed gain rows with every event, and deliveries and
 * attempts change with every attempt, so ANALYZE comes back to them often. Nothing reads them but
 * by their keys and partial indexes, which a tenth of the default sample (3,000 rows rather than
 * 30,000) plans as well. On the embedded database the sample is what matters: its ANALYZE runs on
 * the one session every request waits for (embedded-autovacuum.ts), and of a deliveries partition
 * of 8,000 rows it took 63 to 138 ms against 28 to 38 at this target, delaying the deliveries of
 * the events that arrived meanwhile. Partitions made later take their table's targets (partitions.ts).
 */
const EVENT_TABLES = ['webhooks.deliveries', 'webhooks.attempts', 'webhooks.feed'];
/** The statistics target of the event tables' columns. */
export const EVENT_TABLE_STATISTICS_TARGET = 10;

export async function up(knex: Knex): Promise<void> {
  await sampleEveryColumn(knex, EVENT_TABLE_STATISTICS_TARGET);
}

export async function down(knex: Knex): Promise<void> {
  await sampleEveryColumn(knex, null);
}

async function sampleEveryColumn(knex: Knex, target: number | null): Promise<void> {
  for (const table of EVENT_TABLES) {
    const columns = [...(await statisticsTargetsOf(knex, table)).keys()];
    await setStatisticsTargets(knex, table, new Map(columns.map((column) => [column, target])));
  }
}
