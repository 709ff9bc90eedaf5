import type { Knex } from 'knex';
import { forEachModelBatch } from './20261130100100_fill_search_suffixes';

/**
 * The trigrams of the models stored before 20261206100000, a batch of models per statement outside
 * a transaction, so a model written meanwhile waits on no more than one batch. Then no model may
 * be without them: the constraint is checked without holding off writes (added `not valid`, then
 * validated under a lock that lets them through).
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await forEachModelBatch(
    knex,
    `update models.models set search_trigrams = models.trigram_ids(search_text)
     where id > ? and id <= ? and search_trigrams is null`,
  );
  await knex.raw(
    'alter table models.models add constraint search_trigrams_kept check (search_trigrams is not null) not valid',
  );
  await knex.raw('alter table models.models validate constraint search_trigrams_kept');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table models.models drop constraint search_trigrams_kept');
}
