/**
 * The claim's check for an earlier pending delivery of a candidate's case to its subscription is
 * answered by the index alone. The check compares the subscription and the id as expressions
 * (`+ 0`, migration 20261211100000) so that no index leading with the subscription can serve it,
 * while the index of the case held the plain columns: only the case was the index's condition,
 * and the check went through every pending delivery of the case, to every subscription of its
 * party, fetching each one's row to see whether it was visible before comparing (no vacuum had
 * marked the burst's pages yet). That is a row per subscription of the party for each candidate:
 * four in a burst to four subscriptions, fifty for a party with fifty.
 *
 * The index now holds the same expressions, so the whole check is its condition: one descent, and
 * a row fetched only when an earlier delivery of the case to that subscription is there.
 *
 * ANALYZE keeps no statistics of the two expressions: nothing but this check reads them, and only
 * through this index. Evaluating them on every sampled row made the embedded database's ANALYZE of
 * a burst's deliveries partition take 37 to 50 ms instead of 9 to 12, on the one session every
 * delivery waits for (embedded-autovacuum.ts). Partitions made later take the same targets
 * (partitions.ts).
 */
import type { Knex } from 'knex';
import { createPartitionedIndexConcurrently, setIndexStatisticsTargets } from '@hub/shared';

export const config = { transaction: false };

const CASE_ORDER_OF_EXPRESSIONS = {
  name: 'deliveries_earlier_of_case',
  suffix: 'earlier_of_case',
  definition: `(case_guid, (subscription_id + 0), (id + 0)) where state = 'pending'`,
};
const CASE_ORDER_OF_COLUMNS = {
  name: 'deliveries_pending_of_case',
  suffix: 'pending_of_case',
  definition: `(case_guid, subscription_id, id) where state = 'pending'`,
};

export async function up(knex: Knex): Promise<void> {
  await replaceIndex(knex, CASE_ORDER_OF_EXPRESSIONS, CASE_ORDER_OF_COLUMNS.name);
  // The expressions are the index's second and third columns; set on the partitioned index, the
  // targets reach its partitions' indexes too.
  await setIndexStatisticsTargets(
    knex,
    `webhooks.${CASE_ORDER_OF_EXPRESSIONS.name}`,
    new Map([
      [2, 0],
      [3, 0],
    ]),
  );
}

export async function down(knex: Knex): Promise<void> {
  await replaceIndex(knex, CASE_ORDER_OF_COLUMNS, CASE_ORDER_OF_EXPRESSIONS.name);
}

async function replaceIndex(
  knex: Knex,
  index: { name: string; suffix: string; definition: string },
  replaced: string,
): Promise<void> {
  await createPartitionedIndexConcurrently(knex, 'webhooks.deliveries', index.name, index.suffix, index.definition);
  await knex.raw(`drop index webhooks.${replaced}`);
}
