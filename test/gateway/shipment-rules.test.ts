/**
 * The shipment a partner asks shipping methods for (the documentation's `tags`,
 * `serviceProviderId`, `departmentId` and `actionType` of shipping-methods, `actionType` and
 * `tags` of routing), through the gateway on the demo world, with Nordic Repair Center allowing
 * only PostNord and drop-off and its Bergen department only PostNord. In the demo world the
 * drop-off ships inbound only and an Urgent case may go by PostNord or Bring only.
 */
import { DEMO_WORLD_FILE, readWorld, type World } from '../../shared/src';
import { caseBody } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

let hub: TestHub;

function worldWithProviderRules(): World {
  const world = readWorld(DEMO_WORLD_FILE);
  const nrc = world.providers!.find((provider) => provider.id === 10)!;
  nrc.shippingMethods = [1, 3];
  nrc.departments!.find((department) => department.id === 102)!.shippingMethods = [1];
  return world;
}

beforeAll(async () => {
  hub = await startTestHub({
    services: ['catalog', 'routing', 'booking', 'gateway'],
    world: worldWithProviderRules(),
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
  });
});
afterAll(() => hub?.stop());

// Elkjøp's laptop warranty repair at the workshop: Nordic Repair Center (methods 1, 2, 3) or Fixit (2, 3).
const combination =
  'originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=1&productType=1&serviceLocation=1';
const get = (path: string) => hub.request('GET', `/api/v3/${path}`, { token: DEMO_TOKENS.elkjop });
const methods = async (query: string) => {
  const res = await get(`shipping-methods?${combination}${query}`);
  expect({ status: res.status, body: res.body }).toEqual(expect.objectContaining({ status: 200 }));
  return res.body.map((method: { id: number }) => method.id);
};
const refused = async (path: string) => {
  const res = await get(path);
  expect(res.status).toBe(400);
  return res.body.error.details;
};

describe('GET /api/v3/shipping-methods', () => {
  it('answers inbound methods by default, and only those that ship the way actionType names', async () => {
    expect(await methods('')).toEqual([1, 2, 3]);
    expect(await methods('&actionType=inbound')).toEqual([1, 2, 3]);
    expect(await methods('&actionType=outbound')).toEqual([1, 2]);
    expect(await methods('&action_type=outbound')).toEqual([1, 2]);
    expect(await refused(`shipping-methods?${combination}&actionType=sideways`)).toEqual({
      actionType: [expect.any(String)],
    });
  });

  it('keeps the methods every tag allows, named by name or id', async () => {
    expect(await methods('&tags=VIP')).toEqual([1, 2, 3]);
    expect(await methods('&tags=Urgent')).toEqual([1, 2]);
    expect(await methods('&tags=VIP,%20Urgent')).toEqual([1, 2]);
    expect(await methods('&tags=2')).toEqual([1, 2]);
    expect(await methods('&tags=Urgent&actionType=outbound')).toEqual([1, 2]);
    expect(await methods('&tags=')).toEqual([1, 2, 3]);
    // Tag names are case-sensitive, as in search-cases.
    expect(await refused(`shipping-methods?${combination}&tags=urgent`)).toEqual({
      tags: ['Value is not present in possible options'],
    });
    expect(await refused(`shipping-methods?${combination}&tags=VIP,99`)).toEqual({
      tags: ['Value is not present in possible options'],
    });
  });

  it("keeps a provider's own competences and the methods the provider allows", async () => {
    expect(await methods('&serviceProviderId=10')).toEqual([1, 3]);
    expect(await methods('&serviceProviderId=30')).toEqual([2, 3]);
    expect(await methods('&serviceProviderId=30&tags=Urgent')).toEqual([2]);
    // A provider the partner does not route this combination to offers nothing.
    expect(await methods('&serviceProviderId=20')).toEqual([]);
    expect(await refused(`shipping-methods?${combination}&serviceProviderId=99`)).toEqual({
      serviceProviderId: ['Value is not present in possible options'],
    });
  });

  it("keeps a department's own competences and what the department and its provider allow", async () => {
    expect(await methods('&departmentId=101')).toEqual([1, 3]);
    expect(await methods('&departmentId=102')).toEqual([1]);
    expect(await methods('&departmentId=102&serviceProviderId=10')).toEqual([1]);
    expect(await methods('&departmentId=301')).toEqual([2, 3]);
    expect(await refused(`shipping-methods?${combination}&departmentId=301&serviceProviderId=10`)).toEqual({
      departmentId: ['Value is not present in possible options'],
    });
    expect(await refused(`shipping-methods?${combination}&departmentId=999`)).toEqual({
      departmentId: ['Value is not present in possible options'],
    });
  });

  it('refuses the shipment parameters on the other lookups', async () => {
    expect(await refused('manufacturers?originatorType=private&bookingType=companyToPrivate&tags=VIP')).toEqual({
      tags: ['Field is not accepted'],
    });
  });
});

describe('GET /api/v3/routing', () => {
  const routed = async (query: string) => {
    const res = await get(`routing?${combination}${query}`);
    expect({ status: res.status, body: res.body }).toEqual(expect.objectContaining({ status: 200 }));
    return {
      department: res.body.serviceProviderCompetence.departmentId,
      methods: res.body.shippingMethods.map((method: { id: number }) => method.id),
    };
  };

  it("answers the chosen competence's methods that its provider and department allow", async () => {
    expect(await routed('&clientPostalCode=0150')).toEqual({ department: 101, methods: [1, 3] });
    expect(await routed('&clientPostalCode=5003')).toEqual({ department: 102, methods: [1] });
  });

  it('answers only the methods that ship the way actionType names and that every tag allows', async () => {
    expect(await routed('&clientPostalCode=0150&actionType=inbound')).toEqual({ department: 101, methods: [1, 3] });
    expect(await routed('&clientPostalCode=0150&actionType=outbound')).toEqual({ department: 101, methods: [1] });
    expect(await routed('&clientPostalCode=0150&tags=Urgent')).toEqual({ department: 101, methods: [1] });
    expect(await routed('&clientPostalCode=0150&tags=VIP')).toEqual({ department: 101, methods: [1, 3] });
    expect(await refused(`routing?${combination}&clientPostalCode=0150&tags=Nope`)).toEqual({
      tags: ['Value is not present in possible options'],
    });
    expect(await refused(`routing?${combination}&clientPostalCode=0150&actionType=both`)).toEqual({
      actionType: [expect.any(String)],
    });
  });
});

describe('POST /api/v3/case/create', () => {
  it('books only an inbound method that the chosen provider and department allow', async () => {
    const book = (shipping: number) =>
      hub.request('POST', '/api/v3/case/create', {
        token: DEMO_TOKENS.elkjop,
        body: caseBody(DEMO_TOKENS.elkjop, { shipping }),
      });
    const kept = await book(3);
    expect({ status: kept.status, body: kept.body }).toEqual({ status: 200, body: { guid: expect.any(String) } });
    const refusedBooking = await book(2);
    expect(refusedBooking.status).toBe(400);
    expect(refusedBooking.body.error.details).toEqual({ shipping: ['Value is not present in possible options'] });
  });
});
