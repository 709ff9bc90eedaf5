/**
 * The scopes of the case tags written before the previous migration kept them. Tags written
 * since, or moved with their case, have theirs already and are left alone.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    update booking.case_tags ct set partner_id = c.partner_id, service_provider_id = c.service_provider_id
      from booking.cases c
     where c.id = ct.case_id and ct.partner_id is null`);
}

export async function down(): Promise<void> {
  // The columns go with the previous migration's down; until then the kept scopes are right.
}
