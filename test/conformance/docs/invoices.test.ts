/**
 * The documentation's "Invoices" page: posting invoices and finding them, each example sent as
 * documented (a demo case's guid in place of the example's) and its answer checked against the
 * documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, sendDocumented, startDocsHub } from './documented';

let hub: TestHub;
let guid: string;
beforeAll(async () => {
  hub = await startDocsHub();
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});
afterAll(() => hub?.stop());

const DETAIL = {
  count: 1,
  name: 'test',
  priceExclVat: 1000,
  priceInclVat: 1200,
  totalAmountExclVat: 1000,
  totalAmountInclVat: 1200,
  vatAmount: 200,
  vatRate: 0.2,
};

const example = () =>
  [100001, 100002].map((externalId, index) => ({
    currency: 'SEK',
    customData: { test: true, ...(index ? { result: 42 } : {}) },
    details: [DETAIL],
    dueDate: '2019-01-01',
    externalId: String(externalId),
    guid,
    priceNet: index ? 30000 : 10000,
    type: 'invoice',
  }));

describe('POST /api/v3/invoices', () => {
  it('saves the documented example and answers the saved invoices', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/invoices', token: DEMO_TOKENS.nrc, body: example() },
      { status: 200, shape: [{ guid: 'c41cb189-e901-4c1e-8133-1ee630a7fa56', currency: 'SEK', priceNet: 100 }] },
    );
    expect(res.body).toHaveLength(2);
  });
});

describe('POST /api/v3/invoices/find', () => {
  it('answers the documented page of invoices with their case', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/invoices/find',
        token: DEMO_TOKENS.nrc,
        body: { filters: { createdAt: { $gt: '2019-01-01' } }, pagination: { offset: 0, limit: 10 } },
      },
      {
        status: 200,
        shape: {
          data: [
            {
              case: {},
              createdAt: '2019-04-03T12:30:12.000Z',
              currency: 'SEK',
              customData: { test: true },
              details: [DETAIL],
              dueDate: '2019-01-01T00:00:00.000Z',
              externalId: '1234567890',
              guid: 'e3df4d74-f559-4e65-b57d-37b5360fb46d',
              id: 60,
              isActive: ANY,
              isPaid: false,
              isSent: ANY,
              linkedInvoice: null,
              priceNet: 10000,
              status: ANY,
              type: 'invoice',
              updatedAt: '2019-04-03T12:31:04.000Z',
            },
          ],
          pagination: { count: 42, offset: 0 },
        },
      },
    );
    expect(res.body.pagination.count).toBe(2);
  });
});
