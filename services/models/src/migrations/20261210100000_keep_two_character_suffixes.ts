import type { Knex } from 'knex';
import { forEachModelBatch } from './20261130100100_fill_search_suffixes';

/**
 * Suffixes of two characters join the table, so a two-character word of a query ("galaxy s2",
 * "thinkpad x1") is a range of it like a longer word: such a word has no trigram, and a search
 * holding it beside a broad word read every model holding the broad word (160,000 at a million
 * models, 200 ms) where the few holding the short one would do. A word adds one row, its last
 * two characters (its longer suffixes were kept already).
 *
 * The models stored before are filled as the first fill did, a batch per statement outside a
 * transaction; a suffix this fill writes from a model's earlier row only costs the search a read.
 */
export const config = { transaction: false };

const suffixesOf = (
  shortest: number,
) => `create or replace function models.suffixes_of(search_text text) returns setof text
    language sql immutable strict parallel safe
    as $$ select distinct substr(word, start) from unnest(string_to_array(search_text, ' ')) as word,
                 generate_series(1, length(word) - ${shortest - 1}) as start $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(suffixesOf(2));
  await forEachModelBatch(
    knex,
    `insert into models.search_suffixes (suffix, model_id, manufacturer_id)
     select x.suffix, m.id, m.manufacturer_id from models.models m, models.suffixes_of(m.search_text) as x(suffix)
     where m.id > ? and m.id <= ? and length(x.suffix) = 2
     on conflict do nothing`,
  );
  await knex.raw('analyze models.search_suffixes');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(suffixesOf(3));
  await knex.raw('delete from models.search_suffixes where length(suffix) < 3');
}
