import type { Knex } from 'knex';

/**
 * Indexes that answer the ranked search's first tiers in rank order, so a query many models
 * match stops after the limit instead of ranking every match: an exact alias through the
 * lower-cased aliases, and a name or mpn starting with the query through byte-ordered keys.
 * `collate "C"` makes a LIKE prefix an index range whatever the database's collation is
 * (the Postgres server's C.UTF-8 does not qualify; PGlite's C does).
 */
export async function up(knex: Knex): Promise<void> {
  // An index needs an immutable expression; lower() of each alias is one.
  await knex.raw(`create function models.lowered(items text[]) returns text[] language sql immutable strict parallel safe
    as $$ select array(select lower(item) from unnest(items) as item) $$`);
  await knex.raw('create index models_aliases_lowered on models.models using gin (models.lowered(aliases))');
  await knex.raw('create index models_name_prefix on models.models ((lower(name) collate "C"), id)');
  await knex.raw('create index models_mpn_prefix on models.models ((lower(mpn) collate "C"), id)');
  // A filtered search walks these in name order; they follow the same byte order.
  await knex.raw('drop index models.models_manufacturer_name');
  await knex.raw('drop index models.models_product_type_name');
  await knex.raw(
    'create index models_manufacturer_name on models.models (manufacturer_id, (lower(name) collate "C"), id)',
  );
  await knex.raw(
    'create index models_product_type_name on models.models (product_type_id, (lower(name) collate "C"), id)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index models.models_manufacturer_name');
  await knex.raw('drop index models.models_product_type_name');
  await knex.raw('create index models_manufacturer_name on models.models (manufacturer_id, lower(name))');
  await knex.raw('create index models_product_type_name on models.models (product_type_id, lower(name))');
  await knex.raw('drop index models.models_mpn_prefix');
  await knex.raw('drop index models.models_name_prefix');
  await knex.raw('drop index models.models_aliases_lowered');
  await knex.raw('drop function models.lowered(text[])');
}
