/**
 * External requests: records integrators log against a case (`requests/log`), and booking
 * attempts sent with a trackingId, kept whole (discarded fields too) with their outcome.
 */
import type { Knex } from 'knex';
import type { AgedTable, Caller, RetentionRule } from '@hub/shared';

export const TRACKED_REQUEST_TYPE = 'caseCreated';

/** The documented statuses of an external request ("Other": `success` | `error`). */
export const REQUEST_STATUSES = ['success', 'error'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

const REQUEST_LOG = 'booking.external_requests';

/** The request log is kept `keepMs` from each record's creation. */
export function requestLogRetention(keepMs: number): { rule: RetentionRule; aged: AgedTable } {
  return {
    rule: { name: 'request log', table: REQUEST_LOG, key: ['id'], ageColumn: 'created_at', keepMs },
    aged: { table: REQUEST_LOG, column: 'created_at', orderBy: 'created_at' },
  };
}

export interface ExternalRequestRow {
  id: number;
  case_id: number | null;
  partner_id: number | null;
  provider_id: number | null;
  account_id: number;
  type: string;
  status: string;
  url: string | null;
  meta: Record<string, unknown>;
  tracking_id: string | null;
  request: string | null;
  response: string | null;
  message: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ExternalRequestOut {
  id: number;
  caseId: number | null;
  type: string;
  status: string;
  url: string | null;
  meta: Record<string, unknown>;
  request: string | null;
  response: string | null;
  message: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewExternalRequest {
  caseId?: number | null;
  type: string;
  status: string;
  url?: string | null;
  meta: Record<string, unknown>;
  trackingId?: string | null;
  request?: string | null;
  response?: string | null;
  message?: string | null;
}

export function externalRequestOut(row: ExternalRequestRow): ExternalRequestOut {
  return {
    id: row.id,
    caseId: row.case_id,
    type: row.type,
    status: row.status,
    url: row.url,
    meta: row.meta,
    request: row.request,
    response: row.response,
    message: row.message,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function insertExternalRequest(
  knex: Knex,
  caller: Caller,
  record: NewExternalRequest,
): Promise<ExternalRequestOut> {
  const [row] = (await externalRequestInsert(knex, caller, record)) as ExternalRequestRow[];
  return externalRequestOut(row);
}

/** The statement of `insertExternalRequest`, for a transaction that sends its statements itself. */
export function externalRequestInsert(knex: Knex, caller: Caller, record: NewExternalRequest): Knex.QueryBuilder {
  return knex(REQUEST_LOG)
    .insert({
      case_id: record.caseId ?? null,
      partner_id: caller.partnerId,
      provider_id: caller.providerId,
      account_id: caller.accountId,
      type: record.type,
      status: record.status,
      url: record.url ?? null,
      meta: JSON.stringify(record.meta),
      tracking_id: record.trackingId ?? null,
      request: record.request ?? null,
      response: record.response ?? null,
      message: record.message ?? null,
    })
    .returning('*');
}

/** A partner's tracked booking attempts under one trackingId, oldest first, after the one of id `after`. */
export async function findTracked(
  knex: Knex,
  partnerId: number,
  trackingId: string,
  after = 0,
): Promise<ExternalRequestOut[]> {
  const rows = (await knex(REQUEST_LOG)
    .where({ partner_id: partnerId, tracking_id: trackingId })
    .where('id', '>', after)
    .orderBy('id')) as ExternalRequestRow[];
  return rows.map(externalRequestOut);
}
