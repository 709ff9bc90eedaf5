import type { Knex } from 'knex';

/**
 * The registry table. `search_text` holds name, mpn and aliases lower-cased in one string so a
 * single trigram index serves the non-strict search; the application keeps it in step on every
 * write (array_to_string is not immutable, so it cannot be a generated column).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.schema.withSchema('models').createTable('models', (table) => {
    table.increments('id');
    table.string('name', 255).notNullable();
    table.string('mpn', 255).notNullable();
    table.integer('manufacturer_id').notNullable();
    table.integer('product_type_id').notNullable();
    table.specificType('aliases', 'text[]').notNullable().defaultTo('{}');
    table.jsonb('tags').notNullable().defaultTo('[]');
    table.string('country_of_origin', 255);
    table.string('taric_se', 64);
    table.string('taric_no', 64);
    table.decimal('value', 12, 2);
    table.decimal('weight', 12, 2);
    table.text('search_text').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Uniqueness ignores case, as matching does; the lower() column leads so an exact lookup by
  // name or mpn alone (resolveName, the strict mpn search) uses the same index.
  await knex.raw('create unique index models_name_manufacturer on models.models (lower(name), manufacturer_id)');
  await knex.raw('create unique index models_mpn_manufacturer on models.models (lower(mpn), manufacturer_id)');
  await knex.raw('create index models_manufacturer_name on models.models (manufacturer_id, lower(name))');
  await knex.raw('create index models_product_type_name on models.models (product_type_id, lower(name))');
  // New entries wait in the index's pending list until it is merged; every search scans that list,
  // and the planner prices it in. A small limit merges it often, so the index stays the cheap path
  // without a vacuum (PGlite runs no autovacuum) at a modest cost to bulk writes.
  await knex.raw(
    'create index models_search_trgm on models.models using gin (search_text gin_trgm_ops) with (gin_pending_list_limit = 256)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('models').dropTableIfExists('models');
}
