/**
 * The event feed: every webhook each party receives (addressing.ts), stored when the hub takes
 * the event whether or not the party has a subscription, so a party can read what it missed.
 *
 * Each party's feed has its own positions, 1, 2, 3, ... with no gap, and each party numbers the
 * events of each case it sees, 1, 2, 3, ... (`caseSequence`). Both are given out under a lock on
 * the party's head row, held until the transaction that stores the webhooks commits, so:
 * - two ingests for one party (two webhooks instances, two producers' relays) take turns, and a
 *   number is never given twice or skipped;
 * - a position commits only after every lower one of the party, so a reader that has seen
 *   position N has seen all before it, and a cursor never passes a webhook still being stored;
 * - a repeated ingest finds its webhooks stored and numbers nothing again.
 * Heads are locked in one order (kind, id) in every transaction, so two ingests never deadlock.
 */
import type { Knex } from 'knex';
import type { AddressedWebhook, NumberedWebhook, Party } from './addressing';

export interface FeedRow {
  party_kind: Party['kind'];
  party_id: number;
  position: number;
  event_id: string;
  webhook_id: string;
  event_type: string;
  case_guid: string | null;
  case_sequence: number | null;
  payload: Record<string, unknown>;
  occurred_at: Date;
  created_at: Date;
}

const partyKey = ({ kind, id }: Party) => `${kind}:${id}`;
const caseKey = (party: Party, caseGuid: string) => `${partyKey(party)}:${caseGuid}`;

function byKindAndId(a: Party, b: Party): number {
  return a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1;
}

/**
 * Stores the webhooks in their parties' feeds, numbered, in the caller's transaction. Answers
 * those it stored; the webhooks of an event already in a party's feed are left out.
 */
export async function appendToFeeds(trx: Knex.Transaction, given: AddressedWebhook[]): Promise<NumberedWebhook[]> {
  // A batch that names an event twice stores it once.
  const webhooks = [
    ...new Map(given.map((webhook) => [`${partyKey(webhook.party)}:${webhook.webhookId}`, webhook])).values(),
  ];
  if (webhooks.length === 0) return [];
  const parties = [...new Map(webhooks.map((webhook) => [partyKey(webhook.party), webhook.party])).values()].sort(
    byKindAndId,
  );
  const heads = await lockHeads(trx, parties);

  const stored = await storedEvents(trx, webhooks);
  const fresh = webhooks.filter((webhook) => !stored.has(`${partyKey(webhook.party)}:${webhook.event.id}`));
  if (fresh.length === 0) return [];

  const numbered = await numberCaseEvents(trx, fresh);
  const rows = numbered.map((webhook) => {
    const key = partyKey(webhook.party);
    const position = heads.get(key)! + 1;
    heads.set(key, position);
    return {
      party_kind: webhook.party.kind,
      party_id: webhook.party.id,
      position,
      event_id: webhook.event.id,
      webhook_id: webhook.webhookId,
      event_type: webhook.eventType,
      case_guid: webhook.event.caseGuid,
      case_sequence: webhook.caseSequence,
      payload: JSON.stringify(webhook.payload),
      occurred_at: webhook.event.occurredAt,
      // The time of the insert, not of the transaction's start: positions and times rise together,
      // so retention, which goes by time, removes a feed from its start and never leaves a hole.
      created_at: trx.raw('clock_timestamp()'),
    };
  });
  for (let start = 0; start < rows.length; start += 500) {
    await trx('webhooks.feed').insert(rows.slice(start, start + 500));
  }
  await trx.raw(
    `update webhooks.feed_heads h set last_position = p.last_position
       from jsonb_to_recordset(?::jsonb) as p(party_kind text, party_id integer, last_position bigint)
      where h.party_kind = p.party_kind and h.party_id = p.party_id`,
    [
      JSON.stringify(
        parties.map((party) => ({
          party_kind: party.kind,
          party_id: party.id,
          last_position: heads.get(partyKey(party)),
        })),
      ),
    ],
  );
  return numbered;
}

/** Locks the parties' heads (made on a party's first webhook), in the order given; answers each last position. */
async function lockHeads(trx: Knex.Transaction, parties: Party[]): Promise<Map<string, number>> {
  const result = await trx.raw(
    `insert into webhooks.feed_heads (party_kind, party_id)
     select party_kind, party_id from jsonb_to_recordset(?::jsonb) as p(ord integer, party_kind text, party_id integer)
      order by ord
     on conflict (party_kind, party_id) do update set last_position = webhooks.feed_heads.last_position
     returning party_kind, party_id, last_position`,
    [JSON.stringify(parties.map((party, ord) => ({ ord, party_kind: party.kind, party_id: party.id })))],
  );
  return new Map(
    (result.rows as Array<{ party_kind: Party['kind']; party_id: number; last_position: number }>).map((row) => [
      partyKey({ kind: row.party_kind, id: row.party_id }),
      row.last_position,
    ]),
  );
}

/** `kind:id:eventId` of each event whose webhooks a party's feed holds already. */
async function storedEvents(trx: Knex.Transaction, webhooks: AddressedWebhook[]): Promise<Set<string>> {
  const result = await trx.raw(
    `select f.party_kind, f.party_id, f.event_id from webhooks.feed f
       join jsonb_to_recordset(?::jsonb) as w(party_kind text, party_id integer, webhook_id text)
         on f.party_kind = w.party_kind and f.party_id = w.party_id and f.webhook_id = w.webhook_id`,
    [
      JSON.stringify(
        webhooks.map((webhook) => ({
          party_kind: webhook.party.kind,
          party_id: webhook.party.id,
          webhook_id: webhook.webhookId,
        })),
      ),
    ],
  );
  return new Set(
    (result.rows as Array<{ party_kind: string; party_id: number; event_id: string }>).map(
      (row) => `${row.party_kind}:${row.party_id}:${row.event_id}`,
    ),
  );
}

/**
 * Gives each event of a case the party's next number for that case, in the order of the
 * webhooks; the webhooks of one event (a New status and its Status transition) share it. The
 * number goes in the payload too, so the feed, the body and the header say the same.
 */
async function numberCaseEvents(trx: Knex.Transaction, webhooks: AddressedWebhook[]): Promise<NumberedWebhook[]> {
  const eventsPerCase = new Map<string, { party: Party; caseGuid: string; events: string[] }>();
  for (const { party, event } of webhooks) {
    if (!event.caseGuid) continue;
    const key = caseKey(party, event.caseGuid);
    const counted = eventsPerCase.get(key) ?? { party, caseGuid: event.caseGuid, events: [] };
    if (!counted.events.includes(event.id)) counted.events.push(event.id);
    eventsPerCase.set(key, counted);
  }
  const firstNumber = new Map<string, number>();
  if (eventsPerCase.size > 0) {
    const result = await trx.raw(
      `insert into webhooks.case_sequences (party_kind, party_id, case_guid, last_sequence)
       select party_kind, party_id, case_guid, events
         from jsonb_to_recordset(?::jsonb) as s(party_kind text, party_id integer, case_guid uuid, events integer)
       on conflict (party_kind, party_id, case_guid)
          do update set last_sequence = webhooks.case_sequences.last_sequence + excluded.last_sequence
       returning party_kind, party_id, case_guid, last_sequence`,
      [
        JSON.stringify(
          [...eventsPerCase.values()].map(({ party, caseGuid, events }) => ({
            party_kind: party.kind,
            party_id: party.id,
            case_guid: caseGuid,
            events: events.length,
          })),
        ),
      ],
    );
    for (const row of result.rows as Array<{
      party_kind: Party['kind'];
      party_id: number;
      case_guid: string;
      last_sequence: number;
    }>) {
      const key = caseKey({ kind: row.party_kind, id: row.party_id }, row.case_guid);
      firstNumber.set(key, row.last_sequence - eventsPerCase.get(key)!.events.length + 1);
    }
  }
  return webhooks.map((webhook) => {
    if (!webhook.event.caseGuid) return { ...webhook, caseSequence: null };
    const key = caseKey(webhook.party, webhook.event.caseGuid);
    const caseSequence = firstNumber.get(key)! + eventsPerCase.get(key)!.events.indexOf(webhook.event.id);
    return { ...webhook, caseSequence, payload: { ...webhook.payload, caseSequence } };
  });
}

/** The party's last position (0 before its first webhook) and up to `limit` webhooks after `after`, oldest first. */
export async function readFeed(
  knex: Knex,
  party: Party,
  after: number,
  limit: number,
): Promise<{ head: number; rows: FeedRow[] }> {
  const head = (await knex('webhooks.feed_heads')
    .where({ party_kind: party.kind, party_id: party.id })
    .first('last_position')) as { last_position: number } | undefined;
  const rows = (await knex('webhooks.feed')
    .where({ party_kind: party.kind, party_id: party.id })
    .andWhere('position', '>', after)
    .orderBy('position')
    .limit(limit)) as FeedRow[];
  return { head: head?.last_position ?? 0, rows };
}
