import type { Knex } from 'knex';

/**
 * Every suffix of at least three characters of every word of a model's `search_text`, kept by
 * triggers in the transaction that writes the model. A word of the query occurs in a model
 * exactly when it starts one of the model's suffixes, so the models holding it are a range of
 * this table's byte-ordered keys: a search can count a word's first few holders, or read some of
 * them, and stop, where the trigram index builds the bitmap of every holder first. The manufacturer
 * leads a second key, so a word within one manufacturer is a range of its own.
 * The table is new and empty here, so its indexes are built with it and lock nothing that exists.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create function models.suffixes_of(search_text text) returns setof text
    language sql immutable strict parallel safe
    as $$ select distinct substr(word, start) from unnest(string_to_array(search_text, ' ')) as word,
                 generate_series(1, length(word) - 2) as start $$`);
  await knex.raw(`create table models.search_suffixes (
    suffix text collate "C" not null,
    model_id int not null,
    manufacturer_id int not null,
    primary key (suffix, model_id)
  )`);
  await knex.raw(
    'create index search_suffixes_manufacturer on models.search_suffixes (manufacturer_id, suffix, model_id)',
  );
  // One statement-level trigger per kind of write, so a batch changes the suffixes in one
  // statement; an update touches only models whose words or manufacturer changed.
  await knex.raw(`create function models.keep_search_suffixes() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into models.search_suffixes (suffix, model_id, manufacturer_id)
          select x.suffix, n.id, n.manufacturer_id from new_rows n, models.suffixes_of(n.search_text) as x(suffix);
      elsif tg_op = 'DELETE' then
        delete from models.search_suffixes s
          using (select o.id, x.suffix from old_rows o, models.suffixes_of(o.search_text) as x(suffix)) gone
          where s.suffix = gone.suffix and s.model_id = gone.id;
      else
        delete from models.search_suffixes s
          using (select o.id, x.suffix from old_rows o join new_rows n on n.id = o.id, models.suffixes_of(o.search_text) as x(suffix)
                  where n.search_text <> o.search_text or n.manufacturer_id <> o.manufacturer_id) gone
          where s.suffix = gone.suffix and s.model_id = gone.id;
        -- A conflict only with a suffix the first fill wrote from a model's earlier row.
        insert into models.search_suffixes (suffix, model_id, manufacturer_id)
          select x.suffix, n.id, n.manufacturer_id from new_rows n join old_rows o on o.id = n.id, models.suffixes_of(n.search_text) as x(suffix)
          where n.search_text <> o.search_text or n.manufacturer_id <> o.manufacturer_id
          on conflict (suffix, model_id) do update set manufacturer_id = excluded.manufacturer_id;
      end if;
      return null;
    end $$`);
  await knex.raw(`create trigger search_suffixes_insert after insert on models.models
    referencing new table as new_rows for each statement execute function models.keep_search_suffixes()`);
  await knex.raw(`create trigger search_suffixes_update after update on models.models
    referencing old table as old_rows new table as new_rows for each statement execute function models.keep_search_suffixes()`);
  await knex.raw(`create trigger search_suffixes_delete after delete on models.models
    referencing old table as old_rows for each statement execute function models.keep_search_suffixes()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger search_suffixes_delete on models.models');
  await knex.raw('drop trigger search_suffixes_update on models.models');
  await knex.raw('drop trigger search_suffixes_insert on models.models');
  await knex.raw('drop function models.keep_search_suffixes()');
  await knex.raw('drop table models.search_suffixes');
  await knex.raw('drop function models.suffixes_of(text)');
}
