/**
 * Whole cases are read by statements each connection prepares once (case-shape.ts): the read by
 * guids behind GET /api/v3/case and the read by ids behind a search's page. A prepared statement
 * keeps the columns it answered when it was prepared, so a column added to the cases later, as a
 * newer version's migration adds one while older processes still run, must not break it.
 */
import type { Knex } from 'knex';
import { type DbService } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';

let hub: TestHub;
let knex: Knex;
let guid: string;

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop, { orderData: { refNo: 'REF-PREPARED-1' } });
});
afterAll(() => hub.stop());

const readCase = () => hub.request('GET', `/api/v3/case?guid=${guid}`, { token: DEMO_TOKENS.elkjop });
const searchByRef = () =>
  hub.request('POST', '/api/v3/search-cases', {
    token: DEMO_TOKENS.elkjop,
    body: { filters: { 'orderData.refNo': 'REF-PREPARED-1' } },
  });

it('prepares the reads by guids and by ids once on the connection', async () => {
  expect((await readCase()).status).toBe(200);
  const found = await searchByRef();
  expect(found.body.data.map((match: { guid: string }) => match.guid)).toEqual([guid]);
  // The embedded database has one connection, so this is the session that read the cases.
  const { rows } = await knex.raw(`select name from pg_prepared_statements where name like 'booking-cases-by-%'`);
  expect(rows.map((row: { name: string }) => row.name).sort()).toEqual([
    'booking-cases-by-guids',
    'booking-cases-by-ids',
  ]);
});

it('reads and finds the case as before once a column is added to the cases', async () => {
  const before = await readCase();
  const foundBefore = await searchByRef();
  await knex.raw('alter table booking.cases add column added_by_a_newer_version text');
  try {
    const after = await readCase();
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    const foundAfter = await searchByRef();
    expect(foundAfter.status).toBe(200);
    expect(foundAfter.body).toEqual(foundBefore.body);
  } finally {
    await knex.raw('alter table booking.cases drop column added_by_a_newer_version');
  }
});
