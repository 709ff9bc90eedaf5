/**
 * Every route the gateway serves, taken from the gateway's own routes (not a hand list), called
 * by every kind of caller: no token, an unknown token, two partners, two providers and an admin.
 * What each gets follows from the access level its action declares: 401 without a valid token,
 * 403 for a role the level leaves out, and for a role it lets in neither of those nor a 5xx.
 *
 * Then the parties' data across the line: partner A and its provider keep a case with a status,
 * a message, a cost proposal, an invoice, a file and a request log entry; partner B and provider
 * B replay every request A made and call every operation of the OpenAPI document with A's ids.
 * None of their answers shows A's data, and A's data reads the same, byte for byte, afterwards.
 */
import type { Knex } from 'knex';
import {
  ACCESS,
  accessAllows,
  ALL_SERVICES,
  databaseOf,
  isAccessLevel,
  type AccessLevel,
  type Role,
} from '../../shared/src';
import { serviceSchemaOf } from '../../cli/src';
import { caseBody } from '../support/cases';
import { DEMO_TOKENS, startTestHub, waitFor, type TestHub } from '../support/hub';
import { fuzzOperations, RequestFuzzer, type OpenApiDocument } from '../support/request-fuzzer';

let hub: TestHub;
const running = ALL_SERVICES.filter((name) => name === 'gateway' || serviceSchemaOf(name));

beforeAll(async () => {
  hub = await startTestHub({ services: running, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
});
afterAll(() => hub.stop());

interface Route {
  method: string;
  path: string;
  access: AccessLevel;
}

/** The API routes the gateway has mounted, each with the access level of its action. */
function servedRoutes(): Route[] {
  const gateway = hub.broker.getLocalService('gateway') as unknown as {
    aliases: Array<{ method: string; fullPath: string; action: string | null; route: { path: string } }>;
  };
  const actions = new Map(hub.broker.registry.getActionList({}).map((item: any) => [item.name, item.action]));
  const routes: Route[] = [];
  for (const alias of gateway.aliases) {
    const access = (actions.get(alias.action) as { access?: unknown } | undefined)?.access;
    if (alias.route.path !== '/api' || !alias.action || !isAccessLevel(access)) continue;
    // Path parameters get a value of the right kind that names nothing.
    routes.push({ method: alias.method, path: alias.fullPath.replace(/:(\w+)/g, '999999'), access });
  }
  return routes;
}

const CALLERS: Array<{ name: string; token?: string; role?: Role }> = [
  { name: 'no token' },
  { name: 'an unknown token', token: 'not-a-token-of-this-hub-0000001' },
  { name: 'partner A', token: DEMO_TOKENS.elkjop, role: 'partner' },
  { name: 'partner B', token: DEMO_TOKENS.power, role: 'partner' },
  { name: 'provider A', token: DEMO_TOKENS.nrc, role: 'provider' },
  { name: 'provider B', token: DEMO_TOKENS.svea, role: 'provider' },
  { name: 'an admin', token: DEMO_TOKENS.admin, role: 'admin' },
];

it('answers every route by the access level its action declares, for every kind of caller', async () => {
  const routes = servedRoutes();
  // Every access level is among the routes, so each row of the matrix is exercised.
  expect(new Set(routes.map((route) => route.access))).toEqual(new Set(Object.values(ACCESS)));
  const wrong: string[] = [];
  for (const route of routes) {
    for (const caller of CALLERS) {
      const res = await hub.request(route.method, route.path, {
        token: caller.token,
        ...(route.method === 'GET' ? {} : { body: {} }),
      });
      const expected = !caller.role ? [401] : accessAllows(route.access, caller.role) ? null : [403];
      const fits = expected ? expected.includes(res.status) : ![401, 403].includes(res.status) && res.status < 500;
      const enveloped = res.status < 400 || typeof res.body?.error === 'object' || typeof res.body?.error === 'string';
      if (!fits || !enveloped)
        wrong.push(`${route.method} ${route.path} (${route.access}) by ${caller.name}: ${res.status}`);
    }
  }
  expect(wrong).toEqual([]);
}, 600_000);

/** A request as sent: A's own, for B to replay. */
interface SentRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** Sends a request and answers its status and the exact bytes of its body (base64, as files are bytes). */
async function exchange(token: string, request: SentRequest): Promise<{ status: number; bytes: string }> {
  const res = await fetch(`${hub.url}/api${request.path}`, {
    method: request.method,
    headers: {
      'X-Hub-Api-Token': token,
      ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

/** Every row of the services' tables that names the case, by its guid or its id, as JSON text. */
async function rowsOfCase(knex: Knex, guid: string, caseId: number): Promise<string[]> {
  const schemas = ALL_SERVICES.map((name) => name.replace(/-/g, '_'));
  const tables = (await knex('information_schema.tables')
    .select('table_schema', 'table_name')
    .whereIn('table_schema', schemas)
    .where('table_type', 'BASE TABLE')
    .orderBy(['table_schema', 'table_name'])) as Array<{ table_schema: string; table_name: string }>;
  const rows: string[] = [];
  for (const { table_schema: schema, table_name: table } of tables) {
    const found = (await knex.raw(
      `select row_to_json(t)::text as row from ??.?? t
        where row_to_json(t)::text like ? or to_jsonb(t)->>'case_id' = ? order by row_to_json(t)::text`,
      [schema, table, `%${guid}%`, String(caseId)],
    )) as { rows: Array<{ row: string }> };
    rows.push(...found.rows.map(({ row }) => `${schema}.${table} ${row}`));
  }
  return rows;
}

/** Waits until every outbox has handed its events on, so relays change nothing while A's data is read. */
async function relayed(): Promise<void> {
  const services = ['booking', 'cost-proposals', 'messaging', 'invoicing'];
  await waitFor(async () => {
    const backlogs = (await Promise.all(services.map((name) => hub.broker.call(`${name}.outboxBacklog`)))) as Array<{
      pending: number;
    }>;
    return backlogs.every(({ pending }) => pending === 0);
  }, 'the outboxes to be relayed');
}

it("keeps A's case, messages, proposals, invoices, files and request log from partner B and provider B, byte for byte", async () => {
  const mark = `A-${Date.now().toString(36)}`;
  /** Text only A's data holds: none of B's answers may show it unless B sent it itself. */
  const markers = {
    refNo: `${mark}-ref`,
    trackingId: `${mark}-tracking`,
    message: `${mark}-message`,
    proposal: `${mark}-proposal`,
    invoice: `${mark}-invoice`,
    fileName: `${mark}-file.txt`,
    fileText: `${mark}-file-content`,
    logged: `${mark}-logged`,
  };
  const partnerA = DEMO_TOKENS.elkjop;
  const providerA = DEMO_TOKENS.nrc;
  /** Every request A makes, with the token it went with. */
  const made: Array<{ token: string; request: SentRequest }> = [];
  const send = async (token: string, request: SentRequest) => {
    made.push({ token, request });
    const res = await hub.request(request.method, `/api${request.path}`, { token, body: request.body });
    expect(res.status).toBe(200);
    return res.body as any;
  };

  const { guid } = await send(partnerA, {
    method: 'POST',
    path: '/v3/case/create',
    body: caseBody(partnerA, { orderData: { refNo: markers.refNo }, trackingId: markers.trackingId }),
  });
  const { id: caseId } = await send(partnerA, { method: 'GET', path: `/v3/case?guid=${guid}` });
  await send(providerA, { method: 'POST', path: '/v3/case/status', body: { guid, key: 'arrived' } });
  const message = await send(providerA, {
    method: 'POST',
    path: '/v3/case-messages/create',
    body: { guid, type: 'serviceComment', content: markers.message },
  });
  const [proposal] = (
    await send(providerA, {
      method: 'POST',
      path: '/v3/cost-proposals',
      body: [{ guid, externalId: [markers.proposal], name: markers.proposal, priceNet: 100, currency: 'NOK' }],
    })
  ).data;
  const [invoice] = await send(providerA, {
    method: 'POST',
    path: '/v3/invoices',
    body: [{ guid, externalId: markers.invoice, priceNet: 100, currency: 'NOK' }],
  });
  await send(partnerA, {
    method: 'POST',
    path: '/v3/case/files',
    body: { guid, files: [{ name: markers.fileName, data: Buffer.from(markers.fileText).toString('base64') }] },
  });
  const read = await send(partnerA, { method: 'GET', path: `/v3/case?guid=${guid}` });
  // A file is listed by the url it is read at, which names its id.
  const fileUrl = (read.orderData.files as Array<{ url: string }>)[0].url;
  const fileId = Number(new URL(fileUrl, hub.url).searchParams.get('id'));
  await send(providerA, {
    method: 'POST',
    path: '/v3/requests/log',
    body: { type: 'export', status: 'success', meta: { caseId }, message: markers.logged },
  });

  /** A's data as A reads it, byte for byte, and as the database holds it. */
  const readsOfA: Array<[string, SentRequest]> = [
    ...[partnerA, providerA].flatMap((token): Array<[string, SentRequest]> =>
      [
        `/v3/case?guid=${guid}&includeRequests=1`,
        `/v3/case-messages?guid=${guid}`,
        `/v3/cost-proposals?guid=${guid}`,
        `/v3/invoices?guid=${guid}`,
        `/v3/case/file?guid=${guid}&id=${fileId}`,
        `/v3/case/history?guid=${guid}`,
        `/v3/case/notifications?guid=${guid}`,
        '/v3/events',
      ].map((path) => [token, { method: 'GET', path }]),
    ),
    [partnerA, { method: 'POST', path: '/v3/requests/find', body: { trackingId: markers.trackingId } }],
  ];
  const knex = (await databaseOf(hub.broker)).knex;
  const snapshot = async () => {
    await relayed();
    const reads: string[] = [];
    for (const [token, request] of readsOfA) {
      const { status, bytes } = await exchange(token, request);
      reads.push(`${request.method} ${request.path} ${status} ${bytes}`);
    }
    return { reads, rows: await rowsOfCase(knex, guid, caseId) };
  };
  const before = await snapshot();
  expect(before.reads.filter((read) => !/ 200 /.test(read)).map((read) => read.slice(0, 160))).toEqual([]);
  expect(before.rows.join('\n')).toContain(markers.logged);

  const partyB = [
    { name: 'partner B', token: DEMO_TOKENS.power, role: 'partner' as Role },
    { name: 'provider B', token: DEMO_TOKENS.svea, role: 'provider' as Role },
  ];
  const wrong: string[] = [];
  /** What B sent: B's own data may hold it (a replayed booking keeps A's refNo), so B may see it again. */
  let sentByB = '';
  const answer = async (who: string, token: string, request: SentRequest, namesA: boolean) => {
    const { status, bytes } = await exchange(token, request);
    const sent = JSON.stringify(request);
    sentByB += sent;
    const text = Buffer.from(bytes, 'base64').toString('utf8');
    const shown = Object.values(markers).filter((marker) => text.includes(marker) && !sentByB.includes(marker));
    const label = `${who}: ${request.method} ${request.path} ${sent.slice(0, 160)} -> ${status}`;
    if (shown.length) wrong.push(`${label} shows ${shown.join(', ')}`);
    if (status >= 500) wrong.push(label);
    // A request that names A's case is refused: B may neither see nor change it.
    if (namesA && status < 400) wrong.push(`${label} was accepted`);
  };

  // Every read of A's data, then every request A made, replayed by B (reads first: B knows none of A's text yet).
  for (const party of partyB)
    for (const request of [...readsOfA.map(([, read]) => read), ...made.map((sent) => sent.request)])
      await answer(
        party.name,
        party.token,
        request,
        // The log entry names A's case by its id.
        JSON.stringify(request).includes(guid) || request.path === '/v3/requests/log',
      );

  // Every operation of the API, called by B with A's case and A's record ids for every id it takes.
  const operations = fuzzOperations((await hub.request('GET', '/api/openapi.json')).body as OpenApiDocument);
  const fuzzer = new RequestFuzzer(19, {
    guids: [guid],
    ids: [caseId, message.id as number, proposal.id as number, invoice.id as number, fileId],
  });
  const examples: Record<string, unknown> = { '/v3/cost-proposals': [{ guid, name: 'B', priceNet: 1 }] };
  for (const operation of operations) {
    for (const party of partyB) {
      if (!accessAllows(operation.access as AccessLevel, party.role)) continue;
      for (let attempt = 0; attempt < 8; attempt++) {
        const request = fuzzer.request(operation, examples[operation.path]);
        await answer(
          party.name,
          party.token,
          { method: request.method, path: request.path, body: request.body },
          false,
        );
      }
    }
  }

  expect(wrong).toEqual([]);
  const after = await snapshot();
  expect(after.rows).toEqual(before.rows);
  expect(after.reads).toEqual(before.reads);
}, 600_000);
