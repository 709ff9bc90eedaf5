/**
 * case/update and case/append, by partner or provider. The change
 * and its `case.updated` event (the spec's diff, for the other party) commit together; a change
 * that alters nothing the webhook reports writes no event.
 */
import type { Knex } from 'knex';
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  BadRequestError,
  type Caller,
  type CallerMeta,
  callerOf,
  ConflictError,
  type ContactDataIn,
  DOMAIN_EVENTS,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
  inTransaction,
  keepIdempotentAnswer,
  writeEvent,
  RESULT,
} from '@hub/shared';
import { assertNotCancelled, caseRowFor, GUID_PARAM, type LifecycleRow, otherParty } from './case-access';
import { caseUpdatedPayload } from './case-diff';
import { caseChanges, type HistoryAction } from './case-history';
import { recordHistory } from './history.store';
import { type CaseOut, type ContactRole, loadCases } from './case-shape';
import {
  type CaseParts,
  checkUpdate,
  CONTACT_PARTS,
  nextParts,
  ruleReferenceOf,
  type SentParts,
  UPDATE_PARTS,
} from './case-update';
import { unknownTagIds } from './tags';
import type { BookingThis } from './booking.types';

export type UpdateCaseParams = SentParts & { guid: string; tags?: number[] };

const part = { type: 'object', optional: true };
const nullablePart = { type: 'object', optional: true, nullable: true };
const UPDATE_PARAMS = {
  guid: GUID_PARAM,
  orderData: part,
  productData: part,
  customer: part,
  consumer: nullablePart,
  pickupDst: nullablePart,
  returnDst: nullablePart,
  tags: { type: 'array', optional: true, max: 50, items: { type: 'number', integer: true, positive: true } },
};

/** How often a change is recomputed when the case changed between its check and its write. */
const UPDATE_ATTEMPTS = 3;

async function storedParts(knex: Knex, row: LifecycleRow): Promise<CaseParts> {
  const contacts = (await knex('booking.case_contacts').where({ case_id: row.id }).select('role', 'data')) as Array<{
    role: ContactRole;
    data: ContactDataIn;
  }>;
  const contact = (role: ContactRole) => contacts.find((entry) => entry.role === role)?.data ?? null;
  return {
    orderData: row.order_data,
    productData: row.product_data,
    customer: contact('customer'),
    consumer: contact('consumer'),
    pickupDst: contact('pickupDst'),
    returnDst: contact('returnDst'),
  };
}

async function writeContact(
  trx: Knex.Transaction,
  caseId: number,
  role: ContactRole,
  data: ContactDataIn | null,
): Promise<void> {
  if (data === null) {
    await trx('booking.case_contacts').where({ case_id: caseId, role }).delete();
    return;
  }
  // Updated in place, so the contact keeps its id and createdAt.
  const updated = await trx('booking.case_contacts')
    .where({ case_id: caseId, role })
    .update({ type: data.type ?? null, data: JSON.stringify(data) });
  if (updated === 0)
    await trx('booking.case_contacts').insert({
      case_id: caseId,
      role,
      type: data.type ?? null,
      data: JSON.stringify(data),
    });
}

/** Writes the parts that were sent; sender and receiver follow the contacts as at booking. */
async function writeParts(trx: Knex.Transaction, row: LifecycleRow, parts: CaseParts, sent: SentParts): Promise<void> {
  const changes: Record<string, unknown> = {
    order_data: JSON.stringify(parts.orderData),
    product_data: JSON.stringify(parts.productData),
    updated_at: trx.fn.now(),
  };
  const contactsSent = CONTACT_PARTS.filter((role) => sent[role] !== undefined);
  for (const role of contactsSent) await writeContact(trx, row.id, role, parts[role]);
  if (contactsSent.length) {
    const endUser = parts.consumer ?? parts.customer;
    await writeContact(trx, row.id, 'sender', parts.pickupDst ?? endUser);
    await writeContact(trx, row.id, 'receiver', parts.returnDst ?? endUser);
    const country = endUser?.countryCode;
    changes.country = country ? country.toUpperCase() : null;
  }
  await trx('booking.cases').where({ id: row.id }).update(changes);
}

async function writeTags(
  trx: Knex.Transaction,
  caseId: number,
  tags: number[],
  mode: 'replace' | 'merge',
): Promise<void> {
  if (mode === 'replace') await trx('booking.case_tags').where({ case_id: caseId }).delete();
  if (tags.length)
    await trx('booking.case_tags')
      .insert(tags.map((tagId) => ({ case_id: caseId, tag_id: tagId })))
      .onConflict(['case_id', 'tag_id'])
      .ignore();
}

/** The party whose keys an update by the caller may change; an admin's changes no party's keys. */
const partyOf = (caller: Caller) => (caller.role === 'partner' || caller.role === 'provider' ? caller.role : null);

/**
 * A change of the case's parts as `caller` sends it, checked as case/update checks it: the row
 * it was checked against (to write only if the case is still that one) and the parts to store.
 */
export async function checkedChange(
  this: BookingThis,
  ctx: Context,
  caller: Caller,
  guid: string,
  sent: SentParts,
  mode: 'replace' | 'merge',
): Promise<{ row: LifecycleRow; parts: CaseParts; details: FieldDetails }> {
  const row = await caseRowFor(this.db.knex, caller, guid);
  assertNotCancelled(row);
  const reference = await ruleReferenceOf(ctx, row);
  const { parts, details } = checkUpdate(
    row,
    nextParts(await storedParts(this.db.knex, row), sent, mode, partyOf(caller)),
    sent,
    reference,
  );
  return { row, parts, details };
}

async function changeCase(this: BookingThis, ctx: Context<UpdateCaseParams, CallerMeta>, mode: 'replace' | 'merge') {
  const caller = callerOf(ctx);
  const sent: SentParts = Object.fromEntries(
    UPDATE_PARTS.filter((key) => ctx.params[key] !== undefined).map((key) => [key, ctx.params[key]]),
  );
  const tags = ctx.params.tags === undefined ? undefined : [...new Set(ctx.params.tags)];
  if (Object.keys(sent).length === 0 && tags === undefined) {
    throw new BadRequestError(`Nothing to change: send any of ${UPDATE_PARTS.join(', ')} or tags`);
  }

  for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
    // Checked outside the transaction, which may not wait on the catalog; the write below goes
    // ahead only if the case is still the one that was checked.
    const { row, parts, details } = await checkedChange.call(this, ctx, caller, ctx.params.guid, sent, mode);
    if (tags)
      for (const id of await unknownTagIds(this.db.knex, tags))
        (details[`tags[${ctx.params.tags!.indexOf(id)}]`] ??= []).push(FIELD_MESSAGES.notAnOption);
    if (Object.keys(details).length) throw new FieldsValidationError(details);

    const updated = await inTransaction(this.db.knex, async (trx) => {
      const locked = await caseRowFor(trx, caller, row.guid, true);
      if (locked.updated_at.getTime() !== row.updated_at.getTime()) return null;
      const [before] = await loadCases(trx, [row.guid]);
      await writeParts(trx, locked, parts, sent);
      if (tags) await writeTags(trx, locked.id, tags, mode);
      const [changed] = await loadCases(trx, [row.guid]);
      await writeCaseUpdated(trx, caller, locked, before, changed);
      await recordCaseChange(trx, caller, locked, mode === 'replace' ? 'updated' : 'appended', before, changed);
      // The product's answer; the changed case is a case read away.
      const answer = { result: true };
      await keepIdempotentAnswer(trx, ctx, answer);
      return answer;
    });
    if (updated) {
      this.relayOutbox();
      return updated;
    }
  }
  throw new ConflictError('The case kept changing while this update was checked; send it again');
}

/** update and append share params and rules; append merges what is sent, update replaces it. */
const changeAction = (rest: string, mode: 'replace' | 'merge'): ActionSchema<BookingThis> => ({
  rest,
  access: ACCESS.PARTNER_PROVIDER,
  summary: mode === 'replace' ? 'Replace parts of a case' : 'Merge keys into parts of a case',
  description:
    mode === 'replace'
      ? 'Each part sent (orderData, productData, a contact, tags as ids) replaces the stored one; answers `{ result: true }`.'
      : 'The keys sent are merged into each part (one level deep); tags are added; answers `{ result: true }`.',
  response: RESULT,
  params: UPDATE_PARAMS,
  handler(this: BookingThis, ctx: Context<UpdateCaseParams, CallerMeta>) {
    return changeCase.call(this, ctx, mode);
  },
});

/**
 * Writes the `case.updated` event of a change for the party that did not make it, in the change's
 * transaction; nothing when nothing it reports changed.
 */
export async function writeCaseUpdated(
  trx: Knex.Transaction,
  caller: Caller,
  row: LifecycleRow,
  before: CaseOut,
  after: CaseOut,
): Promise<void> {
  const audience = otherParty(caller, row);
  const payload = caseUpdatedPayload(
    row.guid,
    before as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
    audience.partnerId !== undefined,
  );
  if (payload)
    await writeEvent(trx, 'booking', { type: DOMAIN_EVENTS.CASE_UPDATED, caseGuid: row.guid, audience, payload });
}

/** Records a change of the case in its history, from the case before and after it, in the change's transaction. */
export function recordCaseChange(
  trx: Knex.Transaction,
  caller: Caller,
  row: LifecycleRow,
  action: HistoryAction,
  before: CaseOut,
  after: CaseOut,
): Promise<void> {
  return recordHistory(
    trx,
    caller,
    row.id,
    action,
    caseChanges(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>),
  );
}

export const caseUpdateActions: Record<string, ActionSchema<BookingThis>> = {
  update: changeAction('POST /v3/case/update', 'replace'),
  append: changeAction('POST /v3/case/append', 'merge'),
};
