/**
 * A store numbers the cases of its webhooks by joining them to the case numbers it has just
 * counted. The party's feed head was joined in the same step: on a head without statistics (a
 * new database, or one no autovacuum has analyzed yet) the planner expected one webhook out of
 * that join, so for each webhook it read every case number of the store, a cost that grows with
 * the square of the store's size (100 webhooks: 20,000 rows, about a tenth of the store's time).
 * The case numbers are now joined first, on their own, where the planner expects every webhook
 * and hashes them once, and the head after. 8,000 events stored by the function in a loop on a
 * database of its own, server CPU: 100 at a time 700 to 880 ms instead of 830 to 1,020 on new
 * tables (about the same once analyzed), 1,000 at a time 780 to 840 instead of 1,970 to 2,070.
 */
import type { Knex } from 'knex';
import {
  NUMBERED_CASES_FIRST,
  NUMBERED_IN_ONE_JOIN,
  storeWebhooksFunction,
} from './20261201100000_create_store_webhooks_function';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(storeWebhooksFunction('', NUMBERED_CASES_FIRST));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(storeWebhooksFunction('', NUMBERED_IN_ONE_JOIN));
}
