/**
 * Partner status mappings and blacklists (the world's `webhooks.statusMappings` and
 * `webhooks.blacklists`): how a partner sees provider status keys in case reads and status
 * webhooks alike. They are reference data, so a partner's view does not depend on the webhooks
 * service running.
 */
import type { Knex } from 'knex';
import type { StatusRules, World } from '@hub/shared';

export async function findStatusRules(knex: Knex, partnerIds: number[]): Promise<Record<number, StatusRules>> {
  const rules: Record<number, StatusRules> = {};
  for (const id of partnerIds) rules[id] = { mappings: {}, blacklist: [] };
  if (partnerIds.length === 0) return rules;
  const [mappings, blacklist] = await Promise.all([
    knex('catalog.status_mappings').whereIn('partner_id', partnerIds).orderBy(['partner_id', 'provider_key']),
    knex('catalog.status_blacklists').whereIn('partner_id', partnerIds).orderBy(['partner_id', 'key']),
  ]);
  for (const row of mappings as Array<{ partner_id: number; provider_key: string; partner_key: string }>)
    rules[row.partner_id].mappings[row.provider_key] = row.partner_key;
  for (const row of blacklist as Array<{ partner_id: number; key: string }>)
    rules[row.partner_id].blacklist.push(row.key);
  return rules;
}

/** Replaces each list the world names, as a whole; a list the file leaves out stays as it is. */
export async function applyStatusRules(trx: Knex.Transaction, world: World): Promise<void> {
  const part = world.webhooks;
  if (part?.statusMappings) {
    await trx('catalog.status_mappings').delete();
    if (part.statusMappings.length)
      await trx('catalog.status_mappings')
        .insert(
          part.statusMappings.map((mapping) => ({
            partner_id: mapping.partnerId,
            provider_key: mapping.providerKey,
            partner_key: mapping.partnerKey,
          })),
        )
        .onConflict(['partner_id', 'provider_key'])
        .merge();
  }
  if (part?.blacklists) {
    await trx('catalog.status_blacklists').delete();
    if (part.blacklists.length)
      await trx('catalog.status_blacklists')
        .insert(part.blacklists.map((entry) => ({ partner_id: entry.partnerId, key: entry.key })))
        .onConflict(['partner_id', 'key'])
        .ignore();
  }
}
