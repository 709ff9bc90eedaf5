/**
 * The hand-over of partner status mappings and blacklists from the webhooks schema, which held
 * them first, to the catalog's, which owns them now. Each service migrates on its own start, in
 * no fixed order, so both services' migrations call this and whichever comes second completes
 * it: nothing is lost in either order. The one place code touches two services' schemas.
 */
import type { Knex } from 'knex';

const MOVES = [
  {
    from: 'webhooks.status_mappings',
    to: 'catalog.status_mappings',
    columns: 'partner_id, provider_key, partner_key',
  },
  { from: 'webhooks.blacklists', to: 'catalog.status_blacklists', columns: 'partner_id, key' },
];

async function exists(knex: Knex, table: string): Promise<boolean> {
  const { rows } = (await knex.raw('select to_regclass(?) as found', [table])) as { rows: Array<{ found: unknown }> };
  return rows[0].found !== null;
}

/**
 * Copies each old table's rows into the catalog's and drops it. Before the catalog's tables
 * exist, an old table is dropped only when empty (a new database); one with rows waits for the
 * catalog's migration. The two services' migrations take turns (each runs in a transaction,
 * which holds the lock to its end): on a new database both run at once, and one dropped an old
 * table between the other's look for it and its read.
 */
export async function moveStatusRulesToCatalog(knex: Knex): Promise<void> {
  await knex.raw(`select pg_advisory_xact_lock(hashtext('hub.moveStatusRulesToCatalog'))`);
  for (const { from, to, columns } of MOVES) {
    if (!(await exists(knex, from))) continue;
    if (await exists(knex, to)) {
      await knex.raw(`insert into ${to} (${columns}) select ${columns} from ${from} on conflict do nothing`);
    } else if ((await knex.raw(`select 1 from ${from} limit 1`)).rows.length > 0) {
      continue;
    }
    await knex.raw(`drop table ${from}`);
  }
}
