/**
 * Manufacturers and product types belong to the catalog: the registry stores their ids and asks
 * the catalog, in one call per request, what an id or a name stands for.
 */
import type { Context } from 'moleculer';
import { referenceKey } from './rules';

export interface ManufacturerOut {
  id: number;
  name: string;
  externalData: unknown;
}
export interface ProductTypeOut extends ManufacturerOut {
  properties: Record<string, unknown>;
}

export interface ReferenceRequest {
  manufacturers: Array<number | string>;
  productTypes: Array<number | string>;
}

export interface ReferenceAnswer {
  manufacturers: Array<ManufacturerOut | null>;
  productTypes: Array<ProductTypeOut | null>;
}

/** The records behind the keys asked for, looked up by the key as sent. */
export class References {
  private readonly manufacturers = new Map<string, ManufacturerOut | null>();
  private readonly productTypes = new Map<string, ProductTypeOut | null>();

  static async load(ctx: Context, wanted: ReferenceRequest): Promise<References> {
    const references = new References();
    const manufacturers = unique(wanted.manufacturers);
    const productTypes = unique(wanted.productTypes);
    if (!manufacturers.length && !productTypes.length) return references;
    const answer = await ctx.call<ReferenceAnswer, ReferenceRequest>('catalog.modelReferences', {
      manufacturers,
      productTypes,
    });
    remember(references.manufacturers, manufacturers, answer.manufacturers);
    remember(references.productTypes, productTypes, answer.productTypes);
    return references;
  }

  /** Takes in what another lookup of the same request found. */
  adopt(other: References): this {
    for (const [key, record] of other.manufacturers)
      if (!this.manufacturers.get(key)) this.manufacturers.set(key, record);
    for (const [key, record] of other.productTypes) if (!this.productTypes.get(key)) this.productTypes.set(key, record);
    return this;
  }

  manufacturer(key: number | string): ManufacturerOut | null {
    return this.manufacturers.get(String(referenceKey(key)).toLowerCase()) ?? null;
  }

  productType(key: number | string): ProductTypeOut | null {
    return this.productTypes.get(String(referenceKey(key)).toLowerCase()) ?? null;
  }
}

/** Each record under the key it was asked by and under its id, which is how stored models name it. */
function remember<T extends { id: number }>(
  into: Map<string, T | null>,
  keys: Array<number | string>,
  records: Array<T | null>,
): void {
  keys.forEach((key, index) => {
    const record = records[index] ?? null;
    into.set(String(key).toLowerCase(), record);
    if (record) into.set(String(record.id), record);
  });
}

function unique(keys: Array<number | string>): Array<number | string> {
  const seen = new Map<string, number | string>();
  for (const key of keys.map(referenceKey)) seen.set(String(key).toLowerCase(), key);
  return [...seen.values()];
}
