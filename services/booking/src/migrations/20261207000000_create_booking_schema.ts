import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/** The booking schema of release 1.0: every table, index, function and trigger it holds. */
const SQL_DIR = path.join(__dirname, '20261207000000_create_booking_schema');

/** In the order they run: tables first, then the functions, then the triggers that call them. */
const FILES = [
  'tables.sql',
  'count_cases.sql',
  'keep_order_values.sql',
  'move_case_tags.sql',
  'scope_case_tag.sql',
  'triggers.sql',
];

export async function up(knex: Knex): Promise<void> {
  for (const file of FILES) await knex.raw(fs.readFileSync(path.join(SQL_DIR, file), 'utf8'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists booking.cases, booking.case_contacts, booking.case_counts, booking.case_files, booking.case_history, booking.case_order_values, booking.case_statuses, booking.tags, booking.case_tags, booking.external_requests, booking.idempotency_keys, booking.outbox, booking.retention_runs, booking.status_keys cascade',
  );
  await knex.raw(
    'drop function if exists booking.count_cases_on_delete(), booking.count_cases_on_insert(), booking.count_cases_on_truncate(), booking.count_cases_on_update(), booking.keep_order_values_on_insert(), booking.keep_order_values_on_update(), booking.move_case_tags(), booking.scope_case_tag()',
  );
}
