/**
 * Reference data: what a booking may name (manufacturers, service types, product types, service
 * locations, accessories, shipping methods). Written from the world file, read as the spec's
 * lookup records. Manufacturers and product types are also found by name or alias.
 */
import type { Knex } from 'knex';
import type { World, WorldShippingMethod } from '@hub/shared';

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
  calendar: WorldShippingMethod['calendar'] | null;
}

export interface Reference {
  manufacturers: NamedRecord[];
  serviceTypes: NamedRecord[];
  productTypes: NamedRecord[];
  serviceLocations: NamedRecord[];
  accessories: AccessoryRecord[];
  shippingMethods: ShippingMethodRecord[];
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
  const [manufacturers, serviceTypes, productTypes, serviceLocations, accessories, shippingMethods] = await Promise.all(
    [
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
          calendar: ShippingMethodRecord['calendar'];
        }>
      >,
    ],
  );
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
      calendar: row.calendar ?? null,
    })),
  };
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
    calendar: json(entry.calendar),
  }));
  if (shippingMethods.length) await trx('catalog.shipping_methods').insert(shippingMethods).onConflict('id').merge();
}
