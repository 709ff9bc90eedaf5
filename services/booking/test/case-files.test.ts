/**
 * case/files and case/file through the gateway: stored bytes and urls listed in orderData.files,
 * served only to the parties of the case, the extension, type and size rules, the upload body
 * limit, and the `case.filesUploaded` event.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { configOf, type DbService, DOMAIN_EVENTS } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';
import { decodeBase64 } from '../src/case-files';

let hub: TestHub;
let knex: Knex;
let guid: string;
let filesDir: string;
const outbox = outboxReader(() => knex, 'booking');
const PDF = Buffer.from('%PDF-1.4 a receipt');

beforeAll(async () => {
  hub = await startTestHub({
    services: BOOKING_SERVICES,
    env: { BODY_LIMIT: '4kb', FILE_MAX_SIZE: '8kb', UPLOAD_BODY_LIMIT: '16kb' },
  });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  filesDir = configOf(hub.broker).filesDir;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
  await outbox.skip();
});
afterAll(() => hub.stop());

const upload = (token: string, body: unknown) => hub.request('POST', '/api/v3/case/files', { token, body });
const storedFiles = () => (fs.existsSync(path.join(filesDir, guid)) ? fs.readdirSync(path.join(filesDir, guid)) : []);
const download = (token: string, url: string) => fetch(`${hub.url}${url}`, { headers: { 'X-Hub-Api-Token': token } });

describe('POST /api/v3/case/files', () => {
  let receiptUrl: string;

  it('stores base64 data, keeps a url as given, lists both in orderData.files and tells the provider', async () => {
    const response = await upload(DEMO_TOKENS.elkjop, {
      guid,
      files: [
        { name: 'receipt.PDF', data: PDF.toString('base64'), type: 'proofOfPurchase' },
        { name: 'photo.jpg', url: 'https://files.example.com/photo.jpg', type: 'selfie' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: true } });
    expect(storedFiles()).toHaveLength(1);

    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: DEMO_TOKENS.nrc });
    const files = read.body.orderData.files;
    expect(files).toEqual([
      {
        url: expect.stringMatching(new RegExp(`^/api/v3/case/file\\?guid=${guid}&id=\\d+$`)),
        name: 'receipt.PDF',
        type: 'proofOfPurchase',
      },
      { url: 'https://files.example.com/photo.jpg', name: 'photo.jpg', type: 'other' },
    ]);
    receiptUrl = files[0].url;

    const events = await outbox.newEvents();
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe(DOMAIN_EVENTS.CASE_FILES_UPLOADED);
    expect(events[0].case_guid).toBe(guid);
    expect(events[0].audience).toEqual({ providerId: 10 });
    expect(events[0].payload).toEqual({ guid, files });
  });

  it('serves a stored file to both parties of the case only', async () => {
    for (const token of [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc]) {
      const response = await download(token, receiptUrl);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="receipt.PDF"');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(PDF);
    }
    for (const token of [DEMO_TOKENS.power, DEMO_TOKENS.svea])
      expect((await download(token, receiptUrl)).status).toBe(404);
    expect((await download(DEMO_TOKENS.admin, receiptUrl)).status).toBe(403);
    expect((await fetch(`${hub.url}${receiptUrl}`)).status).toBe(401);
    const [{ id }] = await knex('booking.case_files').where({ name: 'photo.jpg' }).select('id');
    expect((await download(DEMO_TOKENS.elkjop, `/api/v3/case/file?guid=${guid}&id=${id}`)).status).toBe(404);
    expect((await download(DEMO_TOKENS.elkjop, `/api/v3/case/file?guid=${guid}&id=999999`)).status).toBe(404);
  });

  it('appends a provider upload and addresses it to the partner', async () => {
    const response = await upload(DEMO_TOKENS.nrc, {
      guid,
      files: [{ name: 'report.txt', data: Buffer.from('Diagnosis: fan').toString('base64'), type: 'report' }],
    });
    expect(response.status).toBe(200);
    const [event] = await outbox.newEvents();
    expect(event.audience).toEqual({ partnerId: 1 });
    expect(event.payload.files).toEqual([
      { url: expect.stringContaining('/api/v3/case/file?'), name: 'report.txt', type: 'report' },
    ]);
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: DEMO_TOKENS.elkjop });
    expect(read.body.orderData.files.map((file: { name: string }) => file.name)).toEqual([
      'receipt.PDF',
      'photo.jpg',
      'report.txt',
    ]);
  });

  it('refuses unknown extensions, url with data, neither, bad base64, oversized files and empty lists', async () => {
    const big = Buffer.alloc(8 * 1024 + 1, 1).toString('base64');
    const cases: Array<[unknown[], Record<string, unknown>]> = [
      [
        [{ name: 'virus.exe', data: 'AAAA' }],
        { 'files[0].name': [expect.stringMatching(/^File extension must be one of pdf, jpg/)] },
      ],
      [[{ name: 'noextension', data: 'AAAA' }], { 'files[0].name': [expect.stringMatching(/^File extension/)] }],
      [
        [{ name: 'a.pdf', data: 'AAAA', url: 'https://x.example/a.pdf' }],
        { 'files[0].data': ['Field is not accepted'] },
      ],
      [[{ name: 'a.pdf' }], { 'files[0].url': ['Field is required'] }],
      [[{ name: 'a.pdf', url: 'ftp://x.example/a.pdf' }], { 'files[0].url': ['Wrong format'] }],
      [[{ name: 'a.pdf', data: 'not base64!' }], { 'files[0].data': ['Wrong format'] }],
      [
        [
          { name: 'ok.pdf', data: 'AAAA' },
          { name: 'b.pdf', data: big },
        ],
        { 'files[1].data': ['File must be at most 8192 bytes'] },
      ],
      [[], { files: ['Must have at least 1 items'] }],
    ];
    for (const [files, details] of cases) {
      const response = await upload(DEMO_TOKENS.elkjop, { guid, files });
      expect({ files: files.length, status: response.status, body: response.body }).toEqual({
        files: files.length,
        status: 400,
        body: { error: { message: 'Fields validation failed', details } },
      });
    }
    expect(storedFiles()).toHaveLength(2);
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('takes bodies over BODY_LIMIT up to UPLOAD_BODY_LIMIT, which no other endpoint does', async () => {
    const data = Buffer.alloc(6 * 1024, 7).toString('base64');
    expect(data.length).toBeGreaterThan(4 * 1024);
    const accepted = await upload(DEMO_TOKENS.elkjop, { guid, files: [{ name: 'scan.png', data }] });
    expect(accepted.status).toBe(200);
    const other = await hub.request('POST', '/api/v3/case/update', {
      token: DEMO_TOKENS.elkjop,
      body: { guid, orderData: { refNo: 'x'.repeat(6 * 1024) } },
    });
    expect(other.status).toBe(413);
    const tooLarge = await upload(DEMO_TOKENS.elkjop, {
      guid,
      files: [
        { name: 'a.png', data: Buffer.alloc(7 * 1024).toString('base64') },
        { name: 'b.png', data: Buffer.alloc(7 * 1024).toString('base64') },
      ],
    });
    expect(tooLarge.status).toBe(413);
    const malformed = await hub.request('POST', '/api/v3/case/files', {
      token: DEMO_TOKENS.elkjop,
      rawBody: '{"guid": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      error: { message: 'Fields validation failed', details: { body: ['Malformed JSON'] } },
    });
    await outbox.skip();
  });

  it('is a 404 for another partner and a provider the case is not routed to, a 403 for admins; nothing is stored', async () => {
    const before = storedFiles().length;
    const body = { guid, files: [{ name: 'x.pdf', data: PDF.toString('base64') }] };
    expect((await upload(DEMO_TOKENS.power, body)).status).toBe(404);
    expect((await upload(DEMO_TOKENS.svea, body)).status).toBe(404);
    expect((await upload(DEMO_TOKENS.admin, body)).status).toBe(403);
    expect(storedFiles()).toHaveLength(before);
    expect(await outbox.newEvents()).toEqual([]);
  });
});

describe('base64 file data', () => {
  it('decodes data of the largest file size and more, and refuses what is not base64', () => {
    const bytes = Buffer.alloc(12 * 1024 * 1024, 7);
    expect(decodeBase64(bytes.toString('base64'))?.equals(bytes)).toBe(true);
    expect(decodeBase64(`data:application/pdf;base64,${PDF.toString('base64')}`)?.equals(PDF)).toBe(true);
    for (const text of ['', 'abc', 'ab=c', 'A===', 'not base64!']) expect(decodeBase64(text)).toBeNull();
  });
});
