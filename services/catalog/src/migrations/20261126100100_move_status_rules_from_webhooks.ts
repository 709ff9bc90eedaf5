import type { Knex } from 'knex';
import { moveStatusRulesToCatalog } from '@hub/shared';

/** The status rules the webhooks service held before they moved here (see moveStatusRulesToCatalog). */
export async function up(knex: Knex): Promise<void> {
  await moveStatusRulesToCatalog(knex);
}

/** The moved rows stay; the previous migration's down drops them with their tables. */
export async function down(): Promise<void> {}
