import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/** The webhooks schema of release 1.0: every table, index, function and trigger it holds. */
const SQL_DIR = path.join(__dirname, '20261207000000_create_webhooks_schema');

/** In the order they run: tables first, then the functions, then the triggers that call them. */
const FILES = [
  'tables.sql',
  'claim_due.sql',
  'count_subscription_change.sql',
  'record_attempts.sql',
  'store_addressed_webhooks.sql',
  'store_and_lease.sql',
  'store_webhooks.sql',
  'triggers.sql',
];

export async function up(knex: Knex): Promise<void> {
  for (const file of FILES) await knex.raw(fs.readFileSync(path.join(SQL_DIR, file), 'utf8'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists webhooks.attempts, webhooks.case_sequences, webhooks.deliveries, webhooks.feed, webhooks.feed_heads, webhooks.held_leases, webhooks.retention_runs, webhooks.subscription_changes, webhooks.subscriptions cascade',
  );
  await knex.raw(
    'drop function if exists webhooks.claim_due(uuid, jsonb, integer, integer, integer), webhooks.count_subscription_change(), webhooks.record_attempts(uuid, jsonb), webhooks.store_addressed_webhooks(jsonb, integer, bigint), webhooks.store_and_lease(jsonb, integer, bigint, uuid, jsonb, integer, integer, integer), webhooks.store_webhooks(jsonb, integer)',
  );
  await knex.raw('drop sequence if exists webhooks.subscription_ids');
}
