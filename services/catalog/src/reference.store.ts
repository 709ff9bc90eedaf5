/**
 * Reference data: what a booking may name (manufacturers, service types, product types, service
 * locations, accessories, shipping methods). Written from the world file, read as the spec's
 * lookup records. Manufacturers and product types are also found by name or alias.
 */
import type { Knex } from 'knex';
import { DEFAULT_ACTION_TYPE, type World, type WorldShippingMethod } from '@hub/shared';

export interface NamedRecord {
  id: number;
  name: string;
  aliases: string[];
  properties: Record<string, unknown>;
  externalData: unknown;
}

export interface AccessoryRecord {
  id: number;
  name: string;
  productTypes: number[];
}

export interface ShippingMethodRecord {
  id: number;
  name: string;
  properties: { requirePickupDate: boolean; goodsTypeList: string[] | null };
  requireWeight: boolean;
  requireVolume: boolean;
  /** The directions it ships in; null: every direction. */
  actionTypes: string[] | null;
  calendar: WorldShippingMethod['calendar'] | null;
}

/** The shipping methods one provider, department or tag allows; null: any. */
type Allowed = number[] | null;

/** Which shipping methods the providers, departments and case tags of the world allow. */
export interface ShippingRules {
  providers: Map<number, Allowed>;
  departments: Map<number, Allowed>;
  /** Every case tag, by name as cases carry it (case-sensitive), with what it allows. */
  tags: Array<{ id: number; name: string; shippingMethods: Allowed }>;
}

/** What a shipment is for: its direction, and the provider, department and tags of its case. */
export interface ShipmentContext {
  actionType: string;
  providerId?: number | null;
  departmentId?: number | null;
  tagIds?: number[];
}

export interface Reference {
  manufacturers: NamedRecord[];
  serviceTypes: NamedRecord[];
  productTypes: NamedRecord[];
  serviceLocations: NamedRecord[];
  accessories: AccessoryRecord[];
  shippingMethods: ShippingMethodRecord[];
  shippingRules: ShippingRules;
}

export type NamedKind = 'manufacturers' | 'serviceTypes' | 'productTypes' | 'serviceLocations';

const NAMED_TABLES: Record<NamedKind, string> = {
  manufacturers: 'catalog.manufacturers',
  serviceTypes: 'catalog.service_types',
  productTypes: 'catalog.product_types',
  serviceLocations: 'catalog.service_locations',
};

interface NamedRow {
  id: number;
  name: string;
  aliases: string[];
  properties: Record<string, unknown>;
  external_data: unknown;
}

async function loadNamed(knex: Knex, kind: NamedKind): Promise<NamedRecord[]> {
  const rows = (await knex(NAMED_TABLES[kind]).orderBy('id')) as NamedRow[];
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    aliases: row.aliases,
    properties: row.properties,
    externalData: row.external_data ?? null,
  }));
}

export async function loadReference(knex: Knex): Promise<Reference> {
  const [manufacturers, serviceTypes, productTypes, serviceLocations, accessories, shippingMethods, rules] =
    await Promise.all([
      loadNamed(knex, 'manufacturers'),
      loadNamed(knex, 'serviceTypes'),
      loadNamed(knex, 'productTypes'),
      loadNamed(knex, 'serviceLocations'),
      knex('catalog.accessories').orderBy('id') as Promise<
        Array<{ id: number; name: string; product_types: number[] }>
      >,
      knex('catalog.shipping_methods').orderBy('id') as Promise<
        Array<{
          id: number;
          name: string;
          properties: ShippingMethodRecord['properties'];
          require_weight: boolean;
          require_volume: boolean;
          action_types: string[] | null;
          calendar: ShippingMethodRecord['calendar'];
        }>
      >,
      knex('catalog.shipping_method_rules').orderBy(['kind', 'owner_id']) as Promise<
        Array<{ kind: RuleKind; owner_id: number; name: string | null; shipping_methods: Allowed }>
      >,
    ]);
  const ruleMap = (kind: RuleKind) =>
    new Map(rules.filter((row) => row.kind === kind).map((row) => [row.owner_id, row.shipping_methods]));
  return {
    manufacturers,
    serviceTypes,
    productTypes,
    serviceLocations,
    accessories: accessories.map((row) => ({ id: row.id, name: row.name, productTypes: row.product_types })),
    shippingMethods: shippingMethods.map((row) => ({
      id: row.id,
      name: row.name,
      properties: row.properties,
      requireWeight: row.require_weight,
      requireVolume: row.require_volume,
      actionTypes: row.action_types ?? null,
      calendar: row.calendar ?? null,
    })),
    shippingRules: {
      providers: ruleMap('provider'),
      departments: ruleMap('department'),
      tags: rules
        .filter((row) => row.kind === 'tag')
        .map((row) => ({ id: row.owner_id, name: row.name ?? '', shippingMethods: row.shipping_methods })),
    },
  };
}

type RuleKind = 'provider' | 'department' | 'tag';

/**
 * Whether a shipping method may carry a shipment: it ships in that direction, and the case's
 * provider, department and every tag of the case allow it.
 */
export function shipsFor(method: ShippingMethodRecord, rules: ShippingRules, shipment: ShipmentContext): boolean {
  const allows = (allowed: Allowed | undefined) => !allowed || allowed.includes(method.id);
  return (
    (method.actionTypes === null || method.actionTypes.includes(shipment.actionType)) &&
    (shipment.providerId == null || allows(rules.providers.get(shipment.providerId))) &&
    (shipment.departmentId == null || allows(rules.departments.get(shipment.departmentId))) &&
    (shipment.tagIds ?? []).every((tagId) => allows(rules.tags.find((tag) => tag.id === tagId)?.shippingMethods))
  );
}

/** A booking's own shipment: inbound, to the provider and department routing chose. */
export const bookingShipment = (providerId?: number | null, departmentId?: number | null): ShipmentContext => ({
  actionType: DEFAULT_ACTION_TYPE,
  providerId,
  departmentId,
});

/**
 * The tags a comma-separated list names, each by id or by name (case-sensitive, as cases carry
 * them); null when one of them is no tag of the world.
 */
export function tagIdsOf(rules: ShippingRules, list: string): number[] | null {
  const ids: number[] = [];
  for (const item of list
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const tag = /^\d+$/.test(item)
      ? rules.tags.find((entry) => entry.id === Number(item))
      : rules.tags.find((entry) => entry.name === item);
    if (!tag) return null;
    ids.push(tag.id);
  }
  return ids;
}

export const manufacturerOut = (record: NamedRecord) => ({
  id: record.id,
  name: record.name,
  externalData: record.externalData,
});
export const serviceTypeOut = (record: NamedRecord) => ({
  id: record.id,
  name: record.name,
  properties: record.properties,
  externalData: record.externalData,
});
export const productTypeOut = serviceTypeOut;
export const serviceLocationOut = manufacturerOut;
export const accessoryOut = (record: AccessoryRecord) => ({ id: record.id, name: record.name });
export const shippingMethodOut = (record: ShippingMethodRecord) => ({
  id: record.id,
  name: record.name,
  properties: record.properties,
});

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** Upserts the reference part of a world; entries are keyed by their ids, so a reload changes nothing. */
export async function applyReference(trx: Knex.Transaction, world: World): Promise<void> {
  for (const kind of Object.keys(NAMED_TABLES) as NamedKind[]) {
    const rows = (world[kind] ?? []).map((entry) => ({
      id: entry.id,
      name: entry.name,
      aliases: JSON.stringify(entry.aliases ?? []),
      properties: JSON.stringify(entry.properties ?? {}),
      external_data: json(entry.externalData),
    }));
    if (rows.length) await trx(NAMED_TABLES[kind]).insert(rows).onConflict('id').merge();
  }
  const accessories = (world.accessories ?? []).map((entry) => ({
    id: entry.id,
    name: entry.name,
    product_types: JSON.stringify(entry.productTypes),
  }));
  if (accessories.length) await trx('catalog.accessories').insert(accessories).onConflict('id').merge();
  const shippingMethods = (world.shippingMethods ?? []).map((entry) => ({
    id: entry.id,
    name: entry.name,
    properties: JSON.stringify(entry.properties),
    require_weight: entry.requireWeight ?? false,
    require_volume: entry.requireVolume ?? false,
    action_types: json(entry.actionTypes),
    calendar: json(entry.calendar),
  }));
  if (shippingMethods.length) await trx('catalog.shipping_methods').insert(shippingMethods).onConflict('id').merge();
  await applyShippingRules(trx, world);
}

/**
 * A provider, department or tag entry that has `shippingMethods` replaces what it allows; one
 * without the key keeps it. Every tag is kept by name, so lookups can read the tags a partner names.
 */
async function applyShippingRules(trx: Knex.Transaction, world: World): Promise<void> {
  const owners: Array<{ kind: RuleKind; id: number; name?: string; shippingMethods?: Allowed }> = [
    ...(world.providers ?? []).flatMap((provider) => [
      { kind: 'provider' as const, id: provider.id, shippingMethods: provider.shippingMethods },
      ...(provider.departments ?? []).map((department) => ({
        kind: 'department' as const,
        id: department.id,
        shippingMethods: department.shippingMethods,
      })),
    ]),
    ...(world.tags ?? []).map((tag) => ({
      kind: 'tag' as const,
      id: tag.id,
      name: tag.name,
      shippingMethods: tag.shippingMethods,
    })),
  ];
  for (const owner of owners) {
    if (owner.kind !== 'tag' && owner.shippingMethods === undefined) continue;
    const kept = owner.shippingMethods === undefined ? ['name'] : ['name', 'shipping_methods'];
    await trx('catalog.shipping_method_rules')
      .insert({
        kind: owner.kind,
        owner_id: owner.id,
        name: owner.name ?? null,
        shipping_methods: json(owner.shippingMethods),
      })
      .onConflict(['kind', 'owner_id'])
      .merge(kept);
  }
}
