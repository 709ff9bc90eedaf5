import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/** The catalog schema of release 1.0: every table, index it holds. */
const SQL_DIR = path.join(__dirname, '20261207000000_create_catalog_schema');

/** In the order they run: tables first, then the functions, then the triggers that call them. */
const FILES = ['tables.sql'];

export async function up(knex: Knex): Promise<void> {
  for (const file of FILES) await knex.raw(fs.readFileSync(path.join(SQL_DIR, file), 'utf8'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists catalog.accessories, catalog.contacts, catalog.partners, catalog.providers, catalog.accounts, catalog.departments, catalog.manufacturers, catalog.product_types, catalog.service_locations, catalog.service_types, catalog.shipping_methods, catalog.status_blacklists, catalog.status_mappings cascade',
  );
}
