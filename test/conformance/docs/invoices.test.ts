/**
 * The documentation's "Invoices" page: posting invoices and finding them, each example sent as
 * documented (a demo case's guid in place of the example's) and its answer checked against the
 * documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { type DocumentedShape, sendDocumented, useDocsHub } from './documented';
import { documentedExample, documentedShape } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const PAGE = 'Invoices';
const SAVE = 'POST /api/v3/invoices';
const FIND = 'POST /api/v3/invoices/find';

/** The page's example invoices, on the demo case. */
const example = () =>
  (documentedExample(PAGE, SAVE, 'Example') as Array<Record<string, unknown>>).map((invoice) => ({ ...invoice, guid }));

/**
 * The page's answer to saving shows cost proposals; the hub answers the invoices saved
 * (docs/compatibility.md), so only the fields an invoice shares with that example are checked.
 */
const savedShape = () => {
  const [first] = documentedShape(PAGE, SAVE, 'Output') as Array<Record<string, DocumentedShape>>;
  return [Object.fromEntries(['guid', 'currency', 'priceNet', 'isActive'].map((field) => [field, first[field]]))];
};

describe('POST /api/v3/invoices', () => {
  it('saves the documented example and answers the saved invoices', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/invoices', token: DEMO_TOKENS.nrc, body: example() },
      { status: 200, shape: savedShape() },
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
        body: documentedExample(PAGE, FIND, 'Example'),
      },
      // The example's invoice was not sent to the client yet: `status` is free text, null until set.
      { status: 200, shape: documentedShape(PAGE, FIND, 'Output'), options: { nullable: ['data[].status'] } },
    );
    expect(res.body.pagination.count).toBe(2);
  });
});
