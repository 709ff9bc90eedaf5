/**
 * case/send-completed-email through the gateway, sending to a real SMTP listener started here,
 * once for a request retried with its Idempotency-Key; and the message answers when email is off
 * (no SMTP_URL, or the partner's emails disabled).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const send = (hub: TestHub, token: string, body: unknown, headers?: Record<string, string>) =>
  hub.request('POST', '/api/v3/case/send-completed-email', { token, body, headers });

describe('with an SMTP server', () => {
  let hub: TestHub;
  let smtp: SMTPServer;
  let guid: string;
  const received: Received[] = [];
  /** Emails the listener has begun to take; each is taken whole once `accepting` settles. */
  let begun = 0;
  let accepting = Promise.resolve();

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        begun += 1;
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          void accepting.then(() => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((entry) => entry.address),
              raw: Buffer.concat(chunks).toString('utf8'),
            });
            callback();
          });
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    hub = await startTestHub({
      services: BOOKING_SERVICES,
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'hub@example.org' },
    });
    guid = await bookCase(hub, DEMO_TOKENS.elkjop);
  });
  afterAll(async () => {
    await hub.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('sends to the case its contact when no address is given', async () => {
    const response = await send(hub, DEMO_TOKENS.elkjop, { guid });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: true } });
    expect(received).toHaveLength(1);
    expect(received[0].from).toBe('hub@example.org');
    expect(received[0].to).toEqual(['kari@example.com']);
    expect(received[0].raw).toContain('Subject: Your service case REF-1001 is completed');
    expect(received[0].raw).toContain('Nordic Repair Center');
  });

  it('sends to the address given', async () => {
    const response = await send(hub, DEMO_TOKENS.elkjop, { guid, email: 'desk@example.com' });
    expect(response.status).toBe(200);
    expect(received[1].to).toEqual(['desk@example.com']);
  });

  it('answers a message and sends nothing for a partner whose emails are disabled', async () => {
    const tryggCase = await bookCase(hub, DEMO_TOKENS.trygg);
    const response = await send(hub, DEMO_TOKENS.trygg, { guid: tryggCase });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: 'Emails are disabled for this partner' } });
    expect(received).toHaveLength(2);
  });

  it('refuses a malformed address, another partner its case and providers', async () => {
    const bad = await send(hub, DEMO_TOKENS.elkjop, { guid, email: 'not an address' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { message: 'Fields validation failed', details: { email: ['Wrong format'] } } });
    expect((await send(hub, DEMO_TOKENS.power, { guid })).status).toBe(404);
    expect((await send(hub, DEMO_TOKENS.nrc, { guid })).status).toBe(403);
    expect((await send(hub, DEMO_TOKENS.elkjop, {})).status).toBe(400);
    expect(received).toHaveLength(2);
  });

  it('sends one email for a request retried with its Idempotency-Key, and refuses the key while it sends', async () => {
    const request = () =>
      send(hub, DEMO_TOKENS.elkjop, { guid, email: 'desk@example.com' }, { 'Idempotency-Key': 'completed-1' });
    let accept!: () => void;
    accepting = new Promise((resolve) => (accept = resolve));
    const first = request();
    await waitFor(() => begun === 3, 'the email under way');
    const meanwhile = await request();
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body).toEqual({
      error: {
        message: 'A request with this Idempotency-Key is still being processed',
        details: { 'Idempotency-Key': 'completed-1' },
      },
    });
    accept();
    expect(await first).toMatchObject({ status: 200, body: { data: { result: true } } });
    const retried = await request();
    expect(retried).toMatchObject({ status: 200, body: { data: { result: true } } });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(received).toHaveLength(3);
    expect(begun).toBe(3);
  });
});

describe('without an SMTP server (the embedded default)', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({ services: BOOKING_SERVICES });
  });
  afterAll(() => hub.stop());

  it('answers the result as a message saying email is disabled', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    const response = await send(hub, DEMO_TOKENS.elkjop, { guid });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: 'Emails are disabled: no SMTP server is configured' } });
  });
});
