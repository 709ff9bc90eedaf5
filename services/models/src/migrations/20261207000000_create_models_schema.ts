import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/** The models schema of release 1.0: every table, index, function and trigger it holds. */
const SQL_DIR = path.join(__dirname, '20261207000000_create_models_schema');

/** In the order they run: tables first, then the functions, then the triggers that call them. */
const FILES = [
  'extensions.sql',
  // Indexes and triggers call these.
  'lowered.sql',
  'suffixes_of.sql',
  'trigram_ids.sql',
  'trigram_similarity.sql',
  'tables.sql',
  'keep_search_suffixes.sql',
  'keep_search_trigrams.sql',
  'triggers.sql',
];

export async function up(knex: Knex): Promise<void> {
  for (const file of FILES) await knex.raw(fs.readFileSync(path.join(SQL_DIR, file), 'utf8'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists models.idempotency_keys, models.models, models.retention_runs, models.search_suffixes cascade',
  );
  await knex.raw(
    'drop function if exists models.keep_search_suffixes(), models.keep_search_trigrams(), models.lowered(text[]), models.suffixes_of(text), models.trigram_ids(text), models.trigram_similarity(integer[], integer[])',
  );
}
