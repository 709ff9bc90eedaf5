/**
 * The competences routing owns: stored per partner, written from the world file, where a file
 * that has a `competences` list replaces the whole list (a rule left out is a rule withdrawn).
 */
import type { Knex } from 'knex';
import type { World, WorldCompetence } from '@hub/shared';
import type { Competence } from './choice';

/** Rows per insert statement, to stay well under Postgres' parameter limit on large worlds. */
const INSERT_CHUNK = 1000;

export function competenceOf(rule: WorldCompetence): Competence {
  return {
    id: rule.id,
    partnerId: rule.partnerId,
    providerId: rule.providerId,
    departmentId: rule.departmentId ?? null,
    originatorTypes: rule.originatorTypes ?? null,
    bookingTypes: rule.bookingTypes ?? null,
    serviceTypes: rule.serviceTypes ?? null,
    manufacturers: rule.manufacturers ?? null,
    productTypes: rule.productTypes ?? null,
    serviceLocations: rule.serviceLocations ?? null,
    shippingMethods: rule.shippingMethods ?? null,
    postalCodes: rule.postalCodes ?? null,
    models: rule.models ?? null,
    priority: rule.priority ?? 0,
    primary: rule.primary ?? false,
    sesam: rule.sesam ?? null,
    persDep: rule.persDep ?? null,
    overrideCode: rule.overrideCode ?? null,
    partnerCompetence: rule.partnerCompetence ?? null,
  };
}

export async function findCompetences(knex: Knex, partnerId: number): Promise<Competence[]> {
  const rows = (await knex('routing.competences').where({ partner_id: partnerId }).orderBy('id')) as Array<{
    rule: WorldCompetence;
  }>;
  return rows.map((row) => competenceOf(row.rule));
}

export async function applyCompetences(trx: Knex.Transaction, world: World): Promise<void> {
  if (!world.competences) return;
  await trx('routing.competences').del();
  const rows = world.competences.map((rule) => ({
    id: rule.id,
    partner_id: rule.partnerId,
    rule: JSON.stringify(rule),
  }));
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    await trx('routing.competences').insert(rows.slice(start, start + INSERT_CHUNK));
  }
}
