/** A case's history (docs/cases.md): who changed it, what and when, as the caller's party may see it. */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type CallerMeta,
  callerOf,
  CURSOR_PARAM,
  cursorValues,
  encodeCursor,
  itemsWithinBudget,
  type JsonSchema,
  type ParamsOf,
} from '@hub/shared';
import { caseRowFor, GUID_PARAM, statusRulesFor } from './case-access';
import { HISTORY_ACTIONS, historyForPartner } from './case-history';
import { readHistory } from './history.store';
import type { BookingThis } from './booking.types';

const CASE_HISTORY_PARAMS = { guid: GUID_PARAM, after: CURSOR_PARAM } as const;
export type CaseHistoryParams = ParamsOf<typeof CASE_HISTORY_PARAMS>;

const ANY_VALUE: JsonSchema = { description: 'Any JSON value; null where the field had none' };

/** One entry of a case's history as answered. */
const HISTORY_ENTRY: JsonSchema = {
  title: 'CaseHistoryEntry',
  type: 'object',
  required: ['id', 'at', 'action', 'account', 'party', 'changes'],
  properties: {
    id: { type: 'integer' },
    at: { type: 'string', format: 'date-time', description: 'When the change was written' },
    action: { enum: HISTORY_ACTIONS },
    account: {
      description: 'The account that made the change; null where the hub did not keep it',
      type: ['object', 'null'],
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
    },
    party: {
      description: 'The party the account acted for',
      type: ['object', 'null'],
      required: ['type', 'id', 'name'],
      properties: {
        type: { enum: ['partner', 'provider'] },
        id: { type: 'integer' },
        name: { type: ['string', 'null'] },
      },
    },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'before', 'after'],
        properties: {
          field: { type: 'string', description: 'The path of the field in the Case, e.g. `orderData.refNo`' },
          before: ANY_VALUE,
          after: ANY_VALUE,
        },
      },
    },
  },
};

export const historyActions: Record<string, ActionSchema<BookingThis>> = {
  history: {
    rest: 'GET /v3/case/history',
    access: ACCESS.PARTNER_PROVIDER,
    summary: 'Who changed the case, what and when',
    description:
      'Answers `{ data: [{ id, at, action, account, party, changes: [{ field, before, after }] }], next }`, oldest first. ' +
      "A partner does not see the provider's `orderData.providerSpecific` and sees statuses in its own keys, hidden ones left out. " +
      'An answer holds at most 512 KiB of entries: when the rest do not fit, `next` is the `after` that reads on from the last one; null when none follow.',
    params: CASE_HISTORY_PARAMS,
    response: {
      type: 'object',
      required: ['data', 'next'],
      properties: {
        data: { type: 'array', items: HISTORY_ENTRY },
        next: {
          type: ['string', 'null'],
          description:
            'The `after` of the entries that follow, when they did not fit this answer; null when none follow',
        },
      },
      examples: [
        {
          data: [
            {
              id: 1,
              at: '2026-11-02T09:14:03.120Z',
              action: 'created',
              account: { id: 2, name: 'Elkjøp API' },
              party: { type: 'partner', id: 1, name: 'Elkjøp Nordic' },
              changes: [{ field: 'currentStatus', before: null, after: 'registered' }],
            },
            {
              id: 2,
              at: '2026-11-02T10:40:51.004Z',
              action: 'appended',
              account: { id: 5, name: 'Nordic Repair Center API' },
              party: { type: 'provider', id: 10, name: 'Nordic Repair Center' },
              changes: [{ field: 'orderData.providerOrderReference', before: null, after: 'WO-7' }],
            },
          ],
          next: null,
        },
      ],
    },
    async handler(this: BookingThis, ctx: Context<CaseHistoryParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const rules = await statusRulesFor(this.statusRules, caller);
      const row = await caseRowFor(this.db.knex, caller, ctx.params.guid);
      const after =
        ctx.params.after === undefined ? 0 : (cursorValues(ctx.params.after, ['integer'], 'after')[0] as number);
      const entries = await readHistory(this.db.knex, row);
      // A partner's view of an entry depends on the entries before it, so the whole history is read.
      const shown = (caller.role === 'partner' ? historyForPartner(entries, rules) : entries).filter(
        (entry) => entry.id > after,
      );
      const data = itemsWithinBudget(shown);
      return { data, next: data.length < shown.length ? encodeCursor([data[data.length - 1].id]) : null };
    },
  },
};
