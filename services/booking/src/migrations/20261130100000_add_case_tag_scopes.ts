/**
 * Each case tag keeps its case's partner and provider (issue 17), so a `tags` search finds the
 * tag's cases within the caller's scope from an index on `case_tags` alone, instead of hashing
 * the tag's entries of every scope against the 333,334 index entries of a partner's cases.
 *
 * Kept in the writing transaction: a tag written takes its case's scope, reading the case `for
 * share`, so a concurrent change of the case's scope waits for it or is seen by it; a case whose
 * partner or provider changes moves its tags along. That trigger is per row, with a condition:
 * it fires only for the rare rows that change scope, not for every status or update written to a
 * case. The scopes of the tags already written are filled by the next migration.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table booking.case_tags add column partner_id integer, add column service_provider_id integer');
  await knex.raw(`
    create function booking.scope_case_tag() returns trigger language plpgsql as $$
    begin
      select c.partner_id, c.service_provider_id into new.partner_id, new.service_provider_id
        from booking.cases c where c.id = new.case_id for share;
      return new;
    end $$`);
  await knex.raw(
    'create trigger case_tags_scoped before insert or update of case_id on booking.case_tags for each row execute function booking.scope_case_tag()',
  );
  await knex.raw(`
    create function booking.move_case_tags() returns trigger language plpgsql as $$
    begin
      update booking.case_tags set partner_id = new.partner_id, service_provider_id = new.service_provider_id
       where case_id = new.id;
      return null;
    end $$`);
  await knex.raw(`
    create trigger cases_tags_moved after update of partner_id, service_provider_id on booking.cases for each row
      when (old.partner_id is distinct from new.partner_id or old.service_provider_id is distinct from new.service_provider_id)
      execute function booking.move_case_tags()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger cases_tags_moved on booking.cases');
  await knex.raw('drop function booking.move_case_tags()');
  await knex.raw('drop trigger case_tags_scoped on booking.case_tags');
  await knex.raw('drop function booking.scope_case_tag()');
  await knex.raw('alter table booking.case_tags drop column partner_id, drop column service_provider_id');
}
