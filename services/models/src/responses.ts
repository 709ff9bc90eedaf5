/** What the model registry's endpoints answer, for the API reference (the actions' `response`). */
import { arrayOf, ID, type JsonSchema, MANUFACTURER, PRODUCT_TYPE, record, TIMESTAMP } from '@hub/shared';

const DECIMAL: JsonSchema = { type: ['string', 'null'], pattern: '^-?\\d+\\.\\d{2}$' };
const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };

/** A model of the registry (spec 2). */
const MODEL: JsonSchema = {
  title: 'Model',
  ...record({
    id: ID,
    name: { type: 'string' },
    aliases: arrayOf({ type: 'string' }),
    mpn: { type: 'string', description: 'Manufacturer part number' },
    manufacturer: MANUFACTURER,
    manufacturerId: ID,
    productType: PRODUCT_TYPE,
    productTypeId: ID,
    tags: { type: 'array' },
    countryOfOrigin: TEXT_OR_NULL,
    value: { ...DECIMAL, description: 'Price in EUR, two decimals' },
    weight: { ...DECIMAL, description: 'Weight in kg, two decimals' },
    taricSE: TEXT_OR_NULL,
    taricNO: TEXT_OR_NULL,
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
  }),
};

const MODEL_EXAMPLE = {
  id: 2,
  name: 'iPhone 15',
  aliases: ['A3090'],
  mpn: 'MTP03',
  manufacturer: { id: 1, name: 'Apple', externalData: null },
  manufacturerId: 1,
  productType: { id: 1, name: 'Mobile phone', properties: { requireImei: true }, externalData: null },
  productTypeId: 1,
  tags: [],
  countryOfOrigin: 'China',
  value: '899.00',
  weight: '0.17',
  taricSE: '8517130000',
  taricNO: '85171300',
  createdAt: '2026-11-02T09:14:03.120Z',
  updatedAt: '2026-11-02T09:14:03.120Z',
};

export const MODELS: JsonSchema = { ...arrayOf(MODEL), examples: [[MODEL_EXAMPLE]] };
