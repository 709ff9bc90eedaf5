/**
 * GET /api/v3/case/schema against case/validate through the gateway, for combinations of the demo
 * world that between them reach every booking rule: every body drawn from the schema is a valid
 * instance of it and is accepted, and taking away any field the schema requires of that body is
 * refused with that field named.
 */
import fc from 'fast-check';
import type Ajv2020 from 'ajv/dist/2020';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { DEMO_WORLD_FILE, readWorld } from '@hub/shared';
import { BOOKING_SERVICES, caseBody } from '../../../test/support/cases';
import { documentedAnswer } from '../../../test/support/openapi';
import { arbitraryOf, requiredPaths, schemaValidator } from '../../../test/support/schema-arbitrary';

let hub: TestHub;
let ajv: Ajv2020;

beforeAll(async () => {
  // Each property sends hundreds of bookings with one token.
  hub = await startTestHub({ services: BOOKING_SERVICES, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  ajv = schemaValidator();
});
afterAll(() => hub.stop());

type Choices = Record<string, string | number>;

const schemaQuery = (choices: Choices) =>
  new URLSearchParams(Object.entries(choices).map(([key, value]): [string, string] => [key, String(value)])).toString();
const schemaFor = async (token: string, choices: Choices) => {
  const response = await hub.request('GET', `/api/v3/case/schema?${schemaQuery(choices)}`, { token });
  expect({ status: response.status, body: response.status === 200 ? 'schema' : response.body }).toEqual({
    status: 200,
    body: 'schema',
  });
  return response.body as Record<string, any>;
};
const validate = (token: string, body: unknown) => hub.request('POST', '/api/v3/case/validate', { token, body });

function without(body: Record<string, any>, path: string): Record<string, any> {
  const copy = structuredClone(body);
  const keys = path.split('.');
  const last = keys.pop()!;
  let holder = copy;
  for (const key of keys) holder = holder[key];
  delete holder[last];
  return copy;
}

const COMBINATIONS: Array<{ name: string; token: string; choices: Choices }> = [
  {
    name: 'a laptop for paid repair, dropped off (password, serial; Elkjøp may force a provider)',
    token: DEMO_TOKENS.elkjop,
    choices: {
      originatorType: 'private',
      bookingType: 'companyToPrivate',
      serviceType: 2,
      manufacturer: 1,
      productType: 2,
      location: 1,
      shipping: 3,
      clientPostalCode: '0150',
    },
  },
  {
    name: 'a phone under warranty from a help desk, picked up by a carrier (IMEI, purchase date, pickup date, goods type, destinations, packaging)',
    token: DEMO_TOKENS.elkjop,
    choices: {
      originatorType: 'helpdesk',
      bookingType: 'privateToPrivate',
      serviceType: 1,
      manufacturer: 'Apple',
      productType: 'Mobile phone',
      location: 2,
      shipping: 1,
      clientPostalCode: '5003',
    },
  },
  {
    name: 'a television under warranty on site, shipped as freight (weight, volume)',
    token: DEMO_TOKENS.power,
    choices: {
      originatorType: 'private',
      bookingType: 'companyToPrivate',
      serviceType: 1,
      manufacturer: 4,
      productType: 3,
      location: 3,
      shipping: 4,
      clientPostalCode: '41101',
    },
  },
  {
    name: 'a washing machine for insurance repair from a help desk, shipping assigned (insurance, weight)',
    token: DEMO_TOKENS.trygg,
    choices: {
      originatorType: 'helpdesk',
      bookingType: 'companyToPrivate',
      serviceType: 3,
      manufacturer: 5,
      productType: 4,
      location: 1,
      clientPostalCode: '0150',
    },
  },
];

describe.each(COMBINATIONS)('GET /api/v3/case/schema: $name', ({ token, choices }) => {
  let schema: Record<string, any>;
  let conforms: ReturnType<Ajv2020['compile']>;

  beforeAll(async () => {
    schema = await schemaFor(token, choices);
    conforms = ajv.compile(schema);
  });

  it('draws only bodies that case/validate accepts', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryOf(schema, ajv), async (body) => {
        expect({ valid: conforms(body), errors: conforms.errors }).toEqual({ valid: true, errors: null });
        const response = await validate(token, body);
        expect({ status: response.status, body: response.body }).toEqual({
          status: 200,
          body: { data: { result: true } },
        });
      }),
      { numRuns: 20 },
    );
  });

  it('names each field the schema requires when it is taken away', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryOf(schema, ajv), async (body) => {
        // A booking without `shipping` is not refused: the hub assigns the first method offered (rule 1), so the
        // schema requires a method named in the choices only to keep the rules of that one.
        const required = requiredPaths(schema, body, ajv).filter((field) => field !== 'shipping');
        expect(required).toEqual(expect.arrayContaining(['serviceType', 'customer', 'customer.type', 'productData']));
        for (const field of required) {
          const taken = without(body as Record<string, any>, field);
          expect({ field, valid: conforms(taken) }).toEqual({ field, valid: false });
          const response = await validate(token, taken);
          expect({ field, status: response.status, named: Object.keys(response.body.error?.details ?? {}) }).toEqual({
            field,
            status: 400,
            named: expect.arrayContaining([field]),
          });
        }
      }),
      { numRuns: 8 },
    );
  });
});

describe('GET /api/v3/case/schema: choices', () => {
  const laptop = COMBINATIONS[0].choices;
  const ask = (token: string, choices: Choices) =>
    hub.request('GET', `/api/v3/case/schema?${schemaQuery(choices)}`, { token });

  it('names a choice the lookups do not offer, or one that is missing, as case/validate would', async () => {
    const notOffered = await ask(DEMO_TOKENS.power, { ...laptop, serviceType: 3 });
    expect(notOffered.status).toBe(400);
    expect(notOffered.body.error.details).toEqual({ serviceType: ['Value is not present in possible options'] });
    const noShipping = await ask(DEMO_TOKENS.elkjop, { ...laptop, shipping: 4 });
    expect(noShipping.body.error.details).toEqual({ shipping: ['Value is not present in possible options'] });
    const { location: _location, ...withoutLocation } = laptop;
    const missing = await ask(DEMO_TOKENS.elkjop, withoutLocation);
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.error.details)).toEqual(['location']);
  });

  it('fills the options and choices in: accessories, an assigned shipping method, who may force a provider', async () => {
    const { shipping: _shipping, ...unnamed } = laptop;
    const forPower = await schemaFor(DEMO_TOKENS.power, { ...unnamed, clientPostalCode: '0150' });
    // Power's competence for this booking offers drop-off (3) and home delivery (2); the first by name is assigned.
    expect(forPower.properties.shipping.enum).toEqual([2, null]);
    expect(forPower.required).not.toContain('shipping');
    expect(forPower.properties.productData.required).toEqual(expect.arrayContaining(['serial', 'weight']));
    expect(forPower.properties.forcedProvider).toMatchObject({ type: 'null' });
    expect(forPower.properties.productData.properties.accessory.anyOf[0].propertyNames).toEqual({
      enum: ['1', '4', '6'],
    });
    const forElkjop = await schemaFor(DEMO_TOKENS.elkjop, laptop);
    // Elkjøp may force any provider of the world, the simulated sandbox workshop (40) too.
    expect(forElkjop.properties.forcedProvider.enum).toEqual([10, 20, 30, 40, null]);
    expect(forElkjop.properties.shipping).toMatchObject({ const: 3 });
    expect(forElkjop.properties.productData.required).not.toContain('weight');
  });

  it('is for partners, and in the API reference with its summary and answer schema', async () => {
    expect((await ask(DEMO_TOKENS.nrc, laptop)).status).toBe(403);
    const { operation, validate: documented } = await documentedAnswer(hub, 'GET', '/v3/case/schema');
    expect(operation.summary).toBe('The JSON Schema of the booking body for these choices');
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['serviceType', 'manufacturer', 'productType', 'location', 'shipping', 'originatorType']),
    );
    expect(documented(await schemaFor(DEMO_TOKENS.elkjop, laptop))).toBe(true);
    expect(documented({ type: 'object' })).toBe(false);
  });

  it("requires a partner's mandatory consents in the schema as case/validate does, in either form", async () => {
    const demo = readWorld(DEMO_WORLD_FILE);
    const loadWorld = async (partners: typeof demo.partners) => {
      const res = await hub.request('POST', '/api/admin/world', {
        token: DEMO_TOKENS.admin,
        body: { world: { ...demo, partners }, skipUnowned: true },
      });
      expect(res.status).toBe(200);
    };
    await loadWorld(
      (demo.partners ?? []).map((partner) =>
        partner.id === 1
          ? { ...partner, settings: { ...partner.settings, mandatoryConsents: ['ConsentTerms', 'ConsentRepair'] } }
          : partner,
      ),
    );
    try {
      const conforms = ajv.compile(await schemaFor(DEMO_TOKENS.elkjop, laptop));
      const body = (consents?: unknown) => {
        const sent = caseBody(DEMO_TOKENS.elkjop, laptop);
        return consents === undefined ? sent : { ...sent, orderData: { ...sent.orderData, consents } };
      };
      for (const consents of [{ ConsentTerms: true, ConsentRepair: true }, ['ConsentRepair', 'ConsentTerms']]) {
        expect({ consents, conforms: conforms(body(consents)), errors: conforms.errors }).toEqual({
          consents,
          conforms: true,
          errors: null,
        });
        expect((await validate(DEMO_TOKENS.elkjop, body(consents))).status).toBe(200);
      }
      for (const [consents, details] of [
        [
          undefined,
          {
            'orderData.consents.ConsentTerms': ['Field is required'],
            'orderData.consents.ConsentRepair': ['Field is required'],
          },
        ],
        [
          { ConsentTerms: false, ConsentRepair: true },
          { 'orderData.consents.ConsentTerms': ['Field must be equal to true'] },
        ],
      ] as const) {
        expect({ consents, conforms: conforms(body(consents)) }).toEqual({ consents, conforms: false });
        const refused = await validate(DEMO_TOKENS.elkjop, body(consents));
        expect(refused.status).toBe(400);
        expect(refused.body.error.details).toEqual(details);
      }
      // A change that sends orderData is held to the list too: update replaces it, append merges into it.
      const booked = await hub.request('POST', '/api/v3/case/create', {
        token: DEMO_TOKENS.elkjop,
        body: body(['ConsentTerms', 'ConsentRepair']),
      });
      expect(booked.status).toBe(200);
      const change = (action: string) =>
        hub.request('POST', `/api/v3/case/${action}`, {
          token: DEMO_TOKENS.elkjop,
          body: { guid: booked.body.guid, orderData: { refNo: 'REF-CONSENTS' } },
        });
      expect((await change('append')).status).toBe(200);
      const replaced = await change('update');
      expect(replaced.status).toBe(400);
      expect(Object.keys(replaced.body.error.details)).toEqual([
        'orderData.consents.ConsentTerms',
        'orderData.consents.ConsentRepair',
      ]);
      // Another partner's bookings are not held to Elkjøp's list.
      expect((await validate(DEMO_TOKENS.power, caseBody(DEMO_TOKENS.power))).status).toBe(200);
    } finally {
      await loadWorld(demo.partners);
    }
  });
});
