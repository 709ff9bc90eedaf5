/**
 * The kept count of each partner's and provider's cases (booking.case_counts) never makes one
 * write wait for another: a booking process stopped mid-transaction must not hold up the
 * bookings of other processes. On the Postgres server, where transactions run side by side.
 */
import knexFactory, { type Knex } from 'knex';
import { type DbService } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';

/** More transactions than the eight stripes the counts once had: two of them would share one. */
const HELD = 9;

let hub: TestHub;
let knex: Knex;
let sideBySide: Knex;

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES, infra: true });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  sideBySide = knexFactory({
    client: 'pg',
    connection: knex.client.config.connection,
    pool: { min: 0, max: HELD },
  });
});

afterAll(async () => {
  await sideBySide?.destroy();
  await hub?.stop();
});

const countedFor = async (partnerId: number) =>
  Number((await knex('booking.case_counts').where({ partner_id: partnerId }).sum({ cases: 'cases' }))[0].cases ?? 0);
const storedFor = async (partnerId: number) =>
  Number((await knex('booking.cases').where({ partner_id: partnerId }).count({ cases: '*' }))[0].cases);

it('books while other transactions hold the counts of the same partner and provider, and counts every case', async () => {
  const template = await bookCase(hub, DEMO_TOKENS.elkjop);
  const { id: templateId, partner_id: partnerId } = await knex('booking.cases')
    .where({ guid: template })
    .first('id', 'partner_id');
  // Transactions that each added a case of the template's pair and have not ended, as a process
  // stopped mid-booking leaves them; none may wait for another (lock_timeout fails one that would).
  const holders = await Promise.all(Array.from({ length: HELD }, () => sideBySide.transaction()));
  try {
    const added = await Promise.allSettled(
      holders.map(async (holder) => {
        await holder.raw("set local lock_timeout = '2s'");
        await holder.raw(
          `insert into booking.cases
           select (jsonb_populate_record(null::booking.cases, to_jsonb(t)
                   || jsonb_build_object('id', nextval(pg_get_serial_sequence('booking.cases', 'id')), 'guid', gen_random_uuid()))).*
             from booking.cases t where t.id = ?`,
          [templateId],
        );
      }),
    );
    expect(added.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []))).toEqual([]);
    expect(await bookCase(hub, DEMO_TOKENS.elkjop)).toEqual(expect.any(String));
  } finally {
    await Promise.allSettled(holders.map((holder, index) => (index === 0 ? holder.rollback() : holder.commit())));
  }
  expect(await countedFor(partnerId)).toBe(await storedFor(partnerId));
  expect(await storedFor(partnerId)).toBe(2 + HELD - 1);
});
