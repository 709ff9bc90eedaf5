/**
 * The documentation's "Shipping" page: the shipping label, base64 of the case's latest label
 * file, to both parties of the case; the documented error when the case has none.
 */
import { OLDER_VERSIONS_DEPRECATION } from '../../../shared/src';
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { sendDocumented, useDocsHub } from './documented';
import { documentedShape } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  // Elkjøp's demo case goes to Nordic Repair Center.
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;
/** The label as the page shows it, "with wrapper object". */
const LABEL = () => documentedShape('Shipping', 'GET /api/v3/shipping/label', 'Output');
const pdf = (text: string) => Buffer.from(`%PDF-1.4\n${text}\n%%EOF`);

async function upload(token: string, files: Array<Record<string, string>>) {
  const res = await hub.request('POST', '/api/v3/case/files', { token, body: { guid, files } });
  expect(res.status).toBe(200);
}

describe('GET /api/v3/shipping/label', () => {
  it('answers 404 while the case has no label, a label sent only as a url or another file type counting for none', async () => {
    await upload(provider, [
      { name: 'receipt.pdf', type: 'proofOfPurchase', data: pdf('receipt').toString('base64') },
      { name: 'label.pdf', type: 'shipmentLabel', url: 'https://carrier.example/label.pdf' },
    ]);
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/shipping/label?guid=${guid}`, token: partner },
      { status: 404, shape: { error: { message: 'Not found' } } },
    );
    expect(res.body.error.message).toBe('The case has no shipping label');
  });

  it('answers the latest label as base64 in data, to the partner and to the provider', async () => {
    await upload(provider, [{ name: 'label-1.pdf', type: 'shipmentLabel', data: pdf('first').toString('base64') }]);
    await upload(provider, [{ name: 'label-2.pdf', type: 'shipmentLabel', data: pdf('second').toString('base64') }]);
    for (const token of [partner, provider]) {
      const res = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/v3/shipping/label?guid=${guid}`, token },
        { status: 200, shape: LABEL() },
      );
      expect(Buffer.from(res.body.data, 'base64')).toEqual(pdf('second'));
    }
  });

  it('answers 404 to a party of another case, as for a case that does not exist', async () => {
    const res = await hub.request('GET', `/api/v3/shipping/label?guid=${guid}`, { token: DEMO_TOKENS.power });
    expect(res.status).toBe(404);
    const other = await hub.request('GET', `/api/v3/shipping/label?guid=${guid}`, { token: DEMO_TOKENS.svea });
    expect(other.status).toBe(404);
  });

  it('is served at the documented v1 path too', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v1/shipping/label?guid=${guid}`, token: partner },
      { status: 200, shape: LABEL() },
    );
    expect(res.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
  });
});
