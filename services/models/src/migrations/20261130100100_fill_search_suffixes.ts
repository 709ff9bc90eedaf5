import type { Knex } from 'knex';

/**
 * The suffixes of the models stored before the table existed, a batch of models per statement
 * outside a transaction, so a model written meanwhile waits on no more than one batch. Its trigger
 * may write the same suffixes: the key makes that a conflict to skip. A suffix this fill wrote
 * from a model's earlier row may stay behind; the search checks every candidate's row, so such a
 * suffix only costs a read.
 */
export const config = { transaction: false };

const MODELS_PER_STATEMENT = 20_000;

/** Runs `statement` once per range of model ids (`id > ? and id <= ?` bound to its ends), in order, over every model stored. */
export async function forEachModelBatch(knex: Knex, statement: string): Promise<void> {
  const { last } = (await knex.raw('select coalesce(max(id), 0) as last from models.models')).rows[0];
  for (let from = 0; from < last; from += MODELS_PER_STATEMENT)
    await knex.raw(statement, [from, from + MODELS_PER_STATEMENT]);
}

export async function up(knex: Knex): Promise<void> {
  await forEachModelBatch(
    knex,
    `insert into models.search_suffixes (suffix, model_id, manufacturer_id)
     select x.suffix, m.id, m.manufacturer_id from models.models m, models.suffixes_of(m.search_text) as x(suffix)
     where m.id > ? and m.id <= ?
     on conflict do nothing`,
  );
  await knex.raw('analyze models.search_suffixes');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('truncate models.search_suffixes');
}
