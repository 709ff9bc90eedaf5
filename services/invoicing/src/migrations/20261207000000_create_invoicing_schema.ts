import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/** The invoicing schema of release 1.0: every table, index, function and trigger it holds. */
const SQL_DIR = path.join(__dirname, '20261207000000_create_invoicing_schema');

/** In the order they run: tables first, then the functions, then the triggers that call them. */
const FILES = ['tables.sql', 'count_custom_values.sql', 'count_invoices.sql', 'keep_custom_values.sql', 'triggers.sql'];

export async function up(knex: Knex): Promise<void> {
  for (const file of FILES) await knex.raw(fs.readFileSync(path.join(SQL_DIR, file), 'utf8'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists invoicing.custom_value_days, invoicing.idempotency_keys, invoicing.invoice_custom_values, invoicing.invoice_days, invoicing.invoice_statuses, invoicing.invoices, invoicing.outbox, invoicing.retention_runs cascade',
  );
  await knex.raw(
    'drop function if exists invoicing.count_custom_values_on_delete(), invoicing.count_custom_values_on_insert(), invoicing.count_custom_values_on_truncate(), invoicing.count_custom_values_on_update(), invoicing.count_invoices_on_delete(), invoicing.count_invoices_on_insert(), invoicing.count_invoices_on_truncate(), invoicing.count_invoices_on_update(), invoicing.keep_custom_values_on_delete(), invoicing.keep_custom_values_on_insert(), invoicing.keep_custom_values_on_truncate(), invoicing.keep_custom_values_on_update()',
  );
}
