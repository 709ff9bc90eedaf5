/**
 * case/update (also the deprecated v2 path) and case/append, by partner or provider. The change
 * and its `case.updated` event (the spec's diff, for the other party) commit together; a change
 * that alters nothing the webhook reports writes no event.
 */
import type { Knex } from 'knex';
import type { ActionSchema, Context, ServiceActionsSchema } from 'moleculer';
import {
  ACCESS,
  BadRequestError,
  type CallerMeta,
  callerOf,
  caseForPartner,
  ConflictError,
  type ContactDataIn,
  DOMAIN_EVENTS,
  FIELD_MESSAGES,
  FieldsValidationError,
  inTransaction,
  writeEvent,
} from '@hub/shared';
import { assertNotCancelled, caseRowFor, GUID_PARAM, type LifecycleRow, otherParty, statusRulesFor } from './case-access';
import { caseUpdatedPayload } from './case-diff';
import { type CaseOut, type ContactRole, loadCases } from './case-shape';
import { type CaseParts, checkUpdate, CONTACT_PARTS, nextParts, ruleReferenceOf, type SentParts, UPDATE_PARTS } from './case-update';
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
  const contacts = (await knex('booking.case_contacts').where({ case_id: row.id }).select('role', 'data')) as Array<{ role: ContactRole; data: ContactDataIn }>;
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

async function writeContact(trx: Knex.Transaction, caseId: number, role: ContactRole, data: ContactDataIn | null): Promise<void> {
  if (data === null) {
    await trx('booking.case_contacts').where({ case_id: caseId, role }).delete();
    return;
  }
  // Updated in place, so the contact keeps its id and createdAt.
  const updated = await trx('booking.case_contacts').where({ case_id: caseId, role }).update({ type: data.type ?? null, data: JSON.stringify(data) });
  if (updated === 0) await trx('booking.case_contacts').insert({ case_id: caseId, role, type: data.type ?? null, data: JSON.stringify(data) });
}

/** Writes the parts that were sent; sender and receiver follow the contacts as at booking. */
async function writeParts(trx: Knex.Transaction, row: LifecycleRow, parts: CaseParts, sent: SentParts): Promise<void> {
  const changes: Record<string, unknown> = { order_data: JSON.stringify(parts.orderData), product_data: JSON.stringify(parts.productData), updated_at: trx.fn.now() };
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

async function writeTags(trx: Knex.Transaction, caseId: number, tags: number[], mode: 'replace' | 'merge'): Promise<void> {
  if (mode === 'replace') await trx('booking.case_tags').where({ case_id: caseId }).delete();
  if (tags.length) await trx('booking.case_tags').insert(tags.map((tagId) => ({ case_id: caseId, tag_id: tagId }))).onConflict(['case_id', 'tag_id']).ignore();
}

async function changeCase(this: BookingThis, ctx: Context<UpdateCaseParams, CallerMeta>, mode: 'replace' | 'merge') {
  const caller = callerOf(ctx);
  const sent: SentParts = Object.fromEntries(UPDATE_PARTS.filter((key) => ctx.params[key] !== undefined).map((key) => [key, ctx.params[key]]));
  const tags = ctx.params.tags === undefined ? undefined : [...new Set(ctx.params.tags)];
  if (Object.keys(sent).length === 0 && tags === undefined) {
    throw new BadRequestError(`Nothing to change: send any of ${UPDATE_PARTS.join(', ')} or tags`);
  }
  const rules = await statusRulesFor(ctx, this.broker, caller);

  for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
    // Checked outside the transaction, which may not wait on the catalog; the write below goes
    // ahead only if the case is still the one that was checked.
    const row = await caseRowFor(this.db.knex, caller, ctx.params.guid);
    assertNotCancelled(row);
    const reference = await ruleReferenceOf(ctx, row);
    const { parts, details } = checkUpdate(row, nextParts(await storedParts(this.db.knex, row), sent, mode), sent, reference);
    if (tags) for (const id of await unknownTagIds(this.db.knex, tags)) (details[`tags[${ctx.params.tags!.indexOf(id)}]`] ??= []).push(FIELD_MESSAGES.notAnOption);
    if (Object.keys(details).length) throw new FieldsValidationError(details);

    const after = await inTransaction(this.db.knex, async (trx): Promise<CaseOut | null> => {
      const locked = await caseRowFor(trx, caller, row.guid, true);
      if (locked.updated_at.getTime() !== row.updated_at.getTime()) return null;
      const [before] = await loadCases(trx, [row.guid]);
      await writeParts(trx, locked, parts, sent);
      if (tags) await writeTags(trx, locked.id, tags, mode);
      const [changed] = await loadCases(trx, [row.guid]);
      const payload = caseUpdatedPayload(row.guid, before as unknown as Record<string, unknown>, changed as unknown as Record<string, unknown>);
      if (payload) await writeEvent(trx, 'booking', { type: DOMAIN_EVENTS.CASE_UPDATED, caseGuid: row.guid, audience: otherParty(caller, locked), payload });
      return changed;
    });
    if (after) {
      this.relayOutbox();
      return { data: caseForPartner(after, rules) };
    }
  }
  throw new ConflictError('The case kept changing while this update was checked; send it again');
}

/** update, its deprecated v2 path and append share params and rules; append merges what is sent, update replaces it. */
const changeAction = (rest: string, mode: 'replace' | 'merge', deprecated = false): ActionSchema => ({
  rest,
  access: ACCESS.PARTNER_PROVIDER,
  deprecated,
  params: UPDATE_PARAMS,
  handler(this: BookingThis, ctx: Context<UpdateCaseParams, CallerMeta>) {
    return changeCase.call(this, ctx, mode);
  },
});

export const caseUpdateActions: ServiceActionsSchema = {
  update: changeAction('POST /v3/case/update', 'replace'),
  updateV2: changeAction('POST /v2/case/update', 'replace', true),
  append: changeAction('POST /v3/case/append', 'merge'),
};
