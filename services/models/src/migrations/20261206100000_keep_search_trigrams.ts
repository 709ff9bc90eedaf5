import type { Knex } from 'knex';

/**
 * Each model's trigrams, kept beside its `search_text` as the numbers pg_trgm compares them by,
 * so ranking a candidate by similarity counts the trigrams it shares with the query instead of
 * building the model's trigrams again: for a word inside many names, 1,000 candidates took 4 to
 * 12 µs each, most of the search. `models.trigram_similarity` answers exactly pg_trgm's
 * `similarity` (the shared trigrams over all distinct ones of both, in float4, 0 when either has
 * none): pg_trgm prints a trigram as its three bytes, or as the hex of the three-byte number it
 * keeps for one that is not printable, and compares them as those three bytes.
 *
 * intarray counts the shared trigrams. It lives in the models schema: on the search path its
 * operators would take over `@>` and `&&` on integer arrays everywhere, where the built-in ones
 * use the GIN indexes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists intarray with schema models');
  // Where it is, should a database's owner have installed it before.
  const { schema } = (
    await knex.raw(`select extnamespace::regnamespace::text as schema from pg_extension where extname = 'intarray'`)
  ).rows[0];
  await knex.raw(`create function models.trigram_ids(search_text text) returns int[]
    language sql immutable strict parallel safe
    as $$ select coalesce(array_agg(id order by id), '{}') from (
            select distinct case when length(trigram) = 3
                                 then (get_byte(bytes, 0) << 16) | (get_byte(bytes, 1) << 8) | get_byte(bytes, 2)
                                 else ('x' || substr(trigram, 3))::bit(24)::int end as id
              from unnest(show_trgm(search_text)) as trigram,
                   convert_to(trigram, getdatabaseencoding()) as bytes) ids $$`);
  await knex.raw(`create function models.trigram_similarity(kept int[], query int[]) returns real
    language sql immutable parallel safe
    as $$ select case when cardinality(kept) = 0 or cardinality(query) = 0 then 0::real
                      else cardinality(kept operator(${schema}.&) query)::real
                           / (cardinality(kept) + cardinality(query) - cardinality(kept operator(${schema}.&) query))::real end $$`);
  // Without a default the column costs no rewrite of the table; 20261206100100 fills it.
  await knex.raw('alter table models.models add column search_trigrams int[]');
  // An update that names search_text without changing it (a batch writes every field) keeps the
  // trigrams it has, and no write can set them apart from their text.
  await knex.raw(`create function models.keep_search_trigrams() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and new.search_text is not distinct from old.search_text then
        new.search_trigrams := old.search_trigrams;
      else
        new.search_trigrams := models.trigram_ids(new.search_text);
      end if;
      return new;
    end $$`);
  await knex.raw(`create trigger search_trigrams before insert or update of search_text on models.models
    for each row execute function models.keep_search_trigrams()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger search_trigrams on models.models');
  await knex.raw('drop function models.keep_search_trigrams()');
  await knex.raw('alter table models.models drop column search_trigrams');
  await knex.raw('drop function models.trigram_similarity(int[], int[])');
  await knex.raw('drop function models.trigram_ids(text)');
  // Only the one this migration installed.
  await knex.raw(`do $$ begin
    if exists (select 1 from pg_extension where extname = 'intarray' and extnamespace = 'models'::regnamespace) then
      drop extension intarray;
    end if;
  end $$`);
}
