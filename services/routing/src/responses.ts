/** What routing's endpoint answers, for the API reference (the actions' `response`). */
import { arrayOf, CONTACT_DATA, ID, type JsonSchema, nullable, record, SHIPPING_METHOD } from '@hub/shared';

const ROUTING_EXAMPLE = {
  servicePartner: { id: 1, name: 'Elkjøp Nordic' },
  servicePartnerCompetence: { overrideCode: null, id: 501 },
  serviceProvider: { id: 10, name: 'Nordic Repair Center', contactData: null },
  serviceProviderCompetence: {
    sesam: 'S-1001',
    persDep: 'OSL',
    departmentId: 101,
    primarySesam: true,
    id: 1,
    overrideCode: null,
  },
  shippingMethods: [
    { id: 3, name: 'Customer drop-off', properties: { goodsTypeList: null, requirePickupDate: false } },
  ],
};

const NAME_OR_NULL: JsonSchema = { type: ['string', 'null'] };

/** The provider chosen for a case, with the competences that chose it (spec 4.2). */
const ROUTING: JsonSchema = {
  title: 'Routing',
  ...record({
    servicePartner: record({ id: ID, name: NAME_OR_NULL }),
    servicePartnerCompetence: {
      type: 'object',
      description: "The partner's business-rule data of the competence (`id`, `overrideCode`, ...)",
    },
    serviceProvider: record({ id: ID, name: NAME_OR_NULL, contactData: nullable(CONTACT_DATA) }),
    serviceProviderCompetence: record({
      sesam: NAME_OR_NULL,
      persDep: NAME_OR_NULL,
      departmentId: { type: ['integer', 'null'] },
      primarySesam: { type: 'boolean' },
      id: ID,
      overrideCode: NAME_OR_NULL,
    }),
    shippingMethods: arrayOf(SHIPPING_METHOD, 'The shipping methods the competence offers'),
  }),
};

export const ROUTING_ANSWER: JsonSchema = { ...ROUTING, examples: [ROUTING_EXAMPLE] };

/** v2 wrapped the same answer in `data`, as the documentation's "Other" page shows. */
export const ROUTING_ANSWER_V2: JsonSchema = { ...record({ data: ROUTING }), examples: [{ data: ROUTING_EXAMPLE }] };
