/**
 * `GET /api/v3/events`: the caller's party's event feed, every webhook it receives whether or not
 * it has a subscription (the same bodies, webhook-ids, case numbers), oldest first, after an
 * opaque cursor, so a receiver recovers what it missed on its own.
 */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type Caller,
  type CallerMeta,
  callerOf,
  CURSOR_PARAM,
  cursorValues,
  encodeCursor,
  FIELD_MESSAGES,
  FieldsValidationError,
  ForbiddenError,
  itemsWithinBudget,
  type ParamsOf,
} from '@hub/shared';
import type { Party } from './addressing';
import { type FeedRow, readFeed } from './feed.store';
import { EVENT_FEED } from './responses';
import type { WebhooksThis } from './types';

export const FEED_PAGE = { defaultLimit: 100, maxLimit: 500 };

const FEED_PARAMS = {
  after: CURSOR_PARAM,
  limit: { type: 'number', integer: true, min: 1, max: FEED_PAGE.maxLimit, optional: true },
} as const;
export type ReadFeedParams = ParamsOf<typeof FEED_PARAMS>;

const CURSOR_ERRORS = {
  otherFeed: "The cursor is of another party's feed",
  ahead: 'The cursor is ahead of the feed',
  expired: 'The events after this cursor are no longer kept: read the feed from its start (leave out after)',
};

function partyOfCaller(caller: Caller): Party {
  const id = caller.role === 'partner' ? caller.partnerId : caller.role === 'provider' ? caller.providerId : null;
  if (!id) throw new ForbiddenError();
  return { kind: caller.role as Party['kind'], id };
}

/** A cursor names the party and the position of the last webhook read, so another party's cursor is refused. */
function cursorOf(party: Party, position: number): string {
  return encodeCursor([party.kind, party.id, position]);
}

function positionOf(cursor: string, party: Party): number {
  const [kind, id, position] = cursorValues(cursor, ['string', 'integer', 'integer'], 'after') as [
    string,
    number,
    number,
  ];
  if (position < 0) throw new FieldsValidationError({ after: [FIELD_MESSAGES.wrongFormat] });
  if (kind !== party.kind || id !== party.id) throw new FieldsValidationError({ after: [CURSOR_ERRORS.otherFeed] });
  return position;
}

function entryOut(row: FeedRow) {
  return {
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    caseGuid: row.case_guid,
    caseSequence: row.case_sequence,
    occurredAt: row.occurred_at.toISOString(),
    payload: row.payload,
  };
}

export const feedActions: Record<string, ActionSchema<WebhooksThis>> = {
  feed: {
    rest: 'GET /v3/events',
    access: ACCESS.PARTNER_PROVIDER,
    summary: "The caller's webhooks, oldest first, after a cursor",
    description:
      "Every webhook the caller's party receives (the same body, webhook-id and caseSequence), whether or not it has a subscription, kept for at least 30 days. Without `after` the feed starts at its oldest entry kept; `next` is the `after` of the following page, and of the next poll when `hasMore` is false. A page holds fewer than `limit` entries when they are large (at most 512 KiB of entries): `hasMore` is then true. A cursor that is malformed, of another party, ahead of the feed or past what is still kept is a 400 naming `after`.",
    params: FEED_PARAMS,
    response: EVENT_FEED,
    async handler(this: WebhooksThis, ctx: Context<ReadFeedParams, CallerMeta>) {
      const party = partyOfCaller(callerOf(ctx));
      const after = ctx.params.after === undefined ? undefined : positionOf(ctx.params.after, party);
      const limit = ctx.params.limit ?? FEED_PAGE.defaultLimit;
      const { head, rows } = await readFeed(this.db.knex, party, after ?? 0, limit + 1);
      if (after !== undefined) {
        if (after > head) throw new FieldsValidationError({ after: [CURSOR_ERRORS.ahead] });
        // Positions have no gaps: a missing next one was removed by retention.
        const first = rows.length ? rows[0].position : head + 1;
        if (after < head && first !== after + 1) throw new FieldsValidationError({ after: [CURSOR_ERRORS.expired] });
      }
      // Within the answer budget too: a page of large webhooks stops early and says there is more.
      const entries = itemsWithinBudget(rows.slice(0, limit).map(entryOut));
      const last = entries.length ? rows[entries.length - 1].position : (after ?? head);
      return { data: entries, next: cursorOf(party, last), hasMore: rows.length > entries.length };
    },
  },
};
