/**
 * cost-proposals: a provider's offers on a case and the partner's reactions to them (spec
 * sections 3 and 4.5), in v3 and the deprecated v1 forms over the same data.
 *
 * Who may see a case is the booking service's answer (`booking.caseParties`), asked once per
 * request before any transaction opens; the state rules live in `rules.ts`.
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  assertAnswerFits,
  type CallerMeta,
  callerOf,
  canSeeCase,
  casePartiesOf,
  type CasePartiesEntry,
  ConflictError,
  DbMixin,
  DOMAIN_EVENTS,
  type FieldDetails,
  FieldsValidationError,
  IdempotencyMixin,
  inTransaction,
  jsonBytes,
  keepIdempotentAnswer,
  LIST_OFFSET_PARAM,
  listWithinBudget,
  NotFoundError,
  type OutboxDbService,
  OlderPathsMixin,
  OutboxMixin,
  type ParamsOf,
  PG_ERRORS,
  RECORD_MAX_BYTES,
  RECORD_TOO_LARGE,
  visibleCase,
  visibleCases,
  outboxAndKeysPolicy,
  RetentionMixin,
} from '@hub/shared';
import { columnsOf, type CostProposalIn, fromV1Input, stateOf, toRecord, toV1Record } from './records';
import {
  approvalsToWithdraw,
  checkProposalFields,
  deactivatedBy,
  decideFeedback,
  externalKeyOf,
  mayBeApproved,
  type Reaction,
  REACTIONS,
  RULE_MESSAGES,
} from './rules';
import {
  deleteProposal,
  findByExternalKey,
  findProposal,
  insertProposal,
  listProposals,
  lockCases,
  NO_REACTION,
  type ProposalRow,
  proposalsByIds,
  recordEvent,
  SCHEMA,
  updateProposal,
  updateProposals,
} from './proposals.store';
import {
  APPROVED_COST_PROPOSAL_V1,
  COST_PROPOSALS,
  COST_PROPOSALS_V1,
  DELETED_COST_PROPOSAL,
  ONE_COST_PROPOSAL,
  SAVED_COST_PROPOSALS,
  SAVED_COST_PROPOSALS_V1,
} from './responses';

export type ListParams = ParamsOf<typeof LIST_PARAMS>;
export type SaveParams = ParamsOf<typeof SAVE_PARAMS>;
export type SaveV1Params = ParamsOf<typeof SAVE_V1_PARAMS>;
export type FeedbackParams = ParamsOf<typeof FEEDBACK_PARAMS>;
export type DeleteParams = ParamsOf<typeof DELETE_PARAMS>;
export type ApproveV1Params = ParamsOf<typeof APPROVE_V1_PARAMS>;

/** Proposals per POST; a provider sends the offers of one case or a few, never a bulk load. */
const MAX_PROPOSALS_PER_REQUEST = 100;
/** Two first sends of one (externalId, name) at once: the loser retries and finds the winner's row. */
const UNIQUE_RACE_ATTEMPTS = 3;

const nullableString = (max: number) => ({ type: 'string', max, optional: true, nullable: true }) as const;
const detailSchema = {
  type: 'object',
  props: {
    line: { type: 'number', integer: true, positive: true, optional: true },
    text: nullableString(1000),
    type: nullableString(64),
    priceNet: { type: 'number', optional: true, nullable: true },
    quantity: { type: 'number', optional: true, nullable: true },
  },
} as const;
/** A v3 proposal as sent; v1 swaps the reaction fields for dateAccepted and approverName. */
const commonProposalProps = {
  guid: 'uuid',
  externalId: { type: 'array', items: 'string|min:1|max:255', max: 20, optional: true, nullable: true },
  name: nullableString(255),
  priceNet: { type: 'number', optional: true, nullable: true },
  currency: { type: 'string', pattern: /^[A-Z]{3}$/, optional: true, nullable: true },
  timeStamp: nullableString(23),
  isActive: { type: 'boolean', optional: true },
  dateValidUntil: nullableString(10),
  details: { type: 'array', items: detailSchema, max: 500, optional: true, nullable: true },
} as const;
const proposalSchema = {
  type: 'object',
  props: {
    ...commonProposalProps,
    reaction: { type: 'enum', values: REACTIONS, optional: true, nullable: true },
    reactionDate: nullableString(40),
    reactionName: nullableString(255),
    comment: nullableString(10_000),
  },
} as const;
const proposalV1Schema = {
  type: 'object',
  props: { ...commonProposalProps, dateAccepted: nullableString(40), approverName: nullableString(255) },
} as const;
const SAVE_PARAMS = {
  items: { type: 'array', items: proposalSchema, min: 1, max: MAX_PROPOSALS_PER_REQUEST },
} as const;
const SAVE_V1_PARAMS = {
  items: { type: 'array', items: proposalV1Schema, min: 1, max: MAX_PROPOSALS_PER_REQUEST },
} as const;
const LIST_PARAMS = { guid: 'uuid', active: { type: 'boolean', optional: true }, offset: LIST_OFFSET_PARAM } as const;
const FEEDBACK_PARAMS = {
  id: 'number|integer|positive',
  name: 'string|min:1|max:255',
  reaction: { type: 'enum', values: REACTIONS },
  comment: nullableString(10_000),
} as const;
const DELETE_PARAMS = { id: 'number|integer|positive' } as const;
const APPROVE_V1_PARAMS = { id: 'number|integer|positive', approverName: 'string|min:1|max:255' } as const;

/** The answer an action gives for the proposals it wrote, which is kept with its Idempotency-Key. */
type AnswerOf<T> = (written: T) => unknown;

type CostProposalsThis = OutboxDbService & {
  listInForm<T>(ctx: Context<ListParams, CallerMeta>, form: (row: ProposalRow) => T): Promise<T[]>;
  visibleProposal(ctx: Context, id: number): Promise<{ row: ProposalRow; parties: CasePartiesEntry }>;
  save(ctx: Context, items: CostProposalIn[], answerOf: AnswerOf<ProposalRow[]>): Promise<unknown>;
  saveInTransaction(
    ctx: Context,
    items: CostProposalIn[],
    parties: Map<string, CasePartiesEntry>,
    answerOf: AnswerOf<ProposalRow[]>,
  ): Promise<unknown>;
  react(
    ctx: Context,
    id: number,
    reaction: Reaction,
    name: string,
    comment: string | null,
    answerOf: AnswerOf<ProposalRow>,
  ): Promise<unknown>;
};

const CostProposalsService: ServiceSchema<ServiceSettingSchema, CostProposalsThis> = {
  name: 'cost-proposals',
  mixins: [
    DbMixin(SCHEMA, path.join(__dirname, 'migrations')),
    OutboxMixin(SCHEMA),
    RetentionMixin(SCHEMA, outboxAndKeysPolicy(SCHEMA)),
    // v2 added rejection and answered as v3 does; v1's own forms are the *V1 actions below.
    OlderPathsMixin({ list: { v2: {} }, save: { v2: {} }, feedback: { v2: {} }, delete: { v2: {} } }),
    IdempotencyMixin(SCHEMA),
  ],
  settings: { rest: '' },
  metadata: {
    description: 'Cost proposals: a provider proposes the cost of a case, the partner approves or rejects it.',
  },

  actions: {
    /** Every proposal ever made on the case, oldest first; `active=true`: those that may be approved. */
    list: {
      rest: 'GET /v3/cost-proposals',
      access: ACCESS.PARTNER_PROVIDER,
      summary: "A case's cost proposals",
      description:
        'Every proposal ever made on the case, oldest first, from the `offset`-th (0 when left out); with `active=true` only those that may be approved. The list holds at most 512 KiB of proposals: when the rest do not fit, it ends early and a `Link` header names the rest (`<?guid=...&offset=N>; rel="next"`).',
      response: COST_PROPOSALS,
      params: LIST_PARAMS,
      async handler(this: CostProposalsThis, ctx: Context<ListParams, CallerMeta>) {
        return this.listInForm(ctx, toRecord);
      },
    },

    /**
     * Creates or updates (same externalId and name for this provider) a list of proposals, all or
     * none. A new proposal makes the older ones of its name on the case inactive, and tells the
     * case's partner (`costProposal.created`); an update tells nobody.
     */
    save: {
      rest: 'POST /v3/cost-proposals',
      access: ACCESS.PROVIDER,
      summary: 'Propose costs on cases',
      description:
        'Creates each proposal, or updates the one with the same `externalId` and `name` of this provider; all or none. A new proposal makes the older ones of its name on the case inactive and sends the partner a webhook; an update sends none.',
      response: SAVED_COST_PROPOSALS,
      params: SAVE_PARAMS,
      handler(this: CostProposalsThis, ctx: Context<SaveParams>) {
        return this.save(ctx, ctx.params.items, (rows) => ({ data: rows.map(toRecord) }));
      },
    },

    /**
     * A reaction on a proposal without one is recorded and tells the case's provider
     * (`costProposal.reacted`); approving withdraws the case's earlier approval. A second reaction
     * equal to the first changes nothing and answers the proposal as it is (safe to retry); a
     * different one is refused with 409, as is approving an inactive proposal: the partner asks
     * the provider for a new proposal instead.
     */
    feedback: {
      rest: 'POST /v3/cost-proposals/feedback',
      access: ACCESS.PARTNER_PROVIDER,
      summary: 'Approve or reject a cost proposal',
      description:
        "Records the reaction and sends the provider a webhook; approving withdraws the case's earlier approval. The same reaction again answers the proposal unchanged; a different one, or approving an inactive proposal, is a 409.",
      response: ONE_COST_PROPOSAL,
      params: FEEDBACK_PARAMS,
      handler(this: CostProposalsThis, ctx: Context<FeedbackParams>) {
        const { id, reaction, name, comment } = ctx.params;
        return this.react(ctx, id, reaction, name, comment ?? null, toRecord);
      },
    },

    delete: {
      rest: 'POST /v3/cost-proposals/delete',
      access: ACCESS.PARTNER_PROVIDER,
      summary: 'Delete a cost proposal',
      description: 'Answers the proposal as it was.',
      response: DELETED_COST_PROPOSAL,
      params: DELETE_PARAMS,
      async handler(this: CostProposalsThis, ctx: Context<DeleteParams>) {
        await this.visibleProposal(ctx, ctx.params.id);
        return inTransaction(this.db.knex, async (trx) => {
          const deleted = await deleteProposal(trx, ctx.params.id);
          if (!deleted) throw new NotFoundError('Cost proposal not found');
          const answer = toRecord(deleted);
          await keepIdempotentAnswer(trx, ctx, answer);
          return answer;
        });
      },
    },

    listV1: {
      rest: 'GET /v1/cost-proposals',
      access: ACCESS.PARTNER_PROVIDER,
      deprecated: true,
      summary: "A case's cost proposals (v1 form)",
      description:
        'As v3 `GET /cost-proposals`, each in the v1 form: the price as text, the approval as `dateAccepted` and `approverName`.',
      response: COST_PROPOSALS_V1,
      params: LIST_PARAMS,
      async handler(this: CostProposalsThis, ctx: Context<ListParams, CallerMeta>) {
        return this.listInForm(ctx, toV1Record);
      },
    },

    saveV1: {
      rest: 'POST /v1/cost-proposals',
      access: ACCESS.PROVIDER,
      deprecated: true,
      summary: 'Propose costs on cases (v1 form)',
      description: 'As v3, with `dateAccepted` and `approverName` in place of the reaction fields.',
      response: SAVED_COST_PROPOSALS_V1,
      params: SAVE_V1_PARAMS,
      handler(this: CostProposalsThis, ctx: Context<SaveV1Params>) {
        return this.save(ctx, ctx.params.items.map(fromV1Input), (rows) => ({ data: rows.map(toV1Record) }));
      },
    },

    /** v1 approval: `id` in the query, `approverName` in the body; the same rules as v3 feedback. */
    approveV1: {
      rest: 'POST /v1/cost-proposals/approve',
      access: ACCESS.PARTNER_PROVIDER,
      deprecated: true,
      summary: 'Approve a cost proposal (v1 form)',
      description: '`id` in the query, `approverName` in the body; the rules of v3 feedback with `approved`.',
      response: APPROVED_COST_PROPOSAL_V1,
      params: APPROVE_V1_PARAMS,
      handler(this: CostProposalsThis, ctx: Context<ApproveV1Params>) {
        return this.react(ctx, ctx.params.id, 'approved', ctx.params.approverName, null, (row) => ({
          data: toV1Record(row),
        }));
      },
    },
  },

  methods: {
    /** The case's proposals in the answer's form, from the offset asked for, within the answer budget. */
    async listInForm<T>(this: CostProposalsThis, ctx: Context<ListParams, CallerMeta>, form: (row: ProposalRow) => T) {
      const { guid, active, offset = 0 } = ctx.params;
      await visibleCase(ctx, guid);
      const rows = await listProposals(this.db.knex, guid);
      const listed = active ? rows.filter((row) => mayBeApproved(stateOf(row))) : rows;
      return listWithinBudget(ctx.meta, listed.slice(offset).map(form), { guid, active }, offset);
    },

    /** A proposal on a case the caller may not see is as missing as one that does not exist. */
    async visibleProposal(this: CostProposalsThis, ctx: Context, id: number) {
      const row = await findProposal(this.db.knex, id);
      const parties = row && (await casePartiesOf(ctx, [row.case_guid])).get(row.case_guid);
      if (!row || !parties || !canSeeCase(callerOf(ctx), parties)) throw new NotFoundError('Cost proposal not found');
      return { row, parties };
    },

    async save(this: CostProposalsThis, ctx: Context, items: CostProposalIn[], answerOf: AnswerOf<ProposalRow[]>) {
      const details: FieldDetails = {};
      items.forEach((item, index) => {
        for (const [field, messages] of Object.entries(checkProposalFields(item)))
          details[`[${index}].${field}`] = messages;
        // A proposal is answered whole in every list of its case's proposals.
        if (jsonBytes(item) > RECORD_MAX_BYTES) details[`[${index}]`] = [RECORD_TOO_LARGE];
      });
      if (Object.keys(details).length) throw new FieldsValidationError(details);

      const guids = [...new Set(items.map((item) => item.guid))];
      const parties = await visibleCases(ctx, guids);

      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await this.saveInTransaction(ctx, items, parties, answerOf);
          this.relayOutbox();
          return answer;
        } catch (err) {
          if ((err as { code?: unknown }).code !== PG_ERRORS.UNIQUE_VIOLATION) throw err;
          if (attempt >= UNIQUE_RACE_ATTEMPTS)
            throw new ConflictError('The cost proposals changed at the same time; send them again');
        }
      }
    },

    saveInTransaction(
      this: CostProposalsThis,
      ctx: Context,
      items: CostProposalIn[],
      parties: Map<string, CasePartiesEntry>,
      answerOf: AnswerOf<ProposalRow[]>,
    ) {
      const providerId = callerOf(ctx).providerId!;
      return inTransaction(this.db.knex, async (trx) => {
        const caseGuids = [...parties.keys()];
        const byCase = new Map<string, ProposalRow[]>(caseGuids.map((guid) => [guid, []]));
        for (const row of await lockCases(trx, caseGuids)) byCase.get(row.case_guid)!.push(row);

        const errors: FieldDetails = {};
        const savedIds: number[] = [];
        for (const [index, item] of items.entries()) {
          const caseStates = byCase.get(item.guid)!.map(stateOf);
          const externalKey = externalKeyOf(item.externalId);
          const existing = externalKey
            ? await findByExternalKey(trx, providerId, externalKey, item.name ?? null)
            : undefined;
          if (existing && existing.case_guid !== item.guid) {
            errors[`[${index}].externalId`] = [RULE_MESSAGES.otherCase];
            continue;
          }
          const columns = columnsOf(item, existing);
          // A reaction the proposal already has stands, as with feedback: only a proposal without one takes one.
          const reacting =
            existing !== undefined && columns.reaction !== undefined && columns.reaction !== existing.reaction;
          if (reacting && existing.reaction !== null) {
            errors[`[${index}].reaction`] = [RULE_MESSAGES.alreadyReacted];
            continue;
          }
          const approving = columns.reaction === 'approved' && existing?.reaction !== 'approved';
          if (approving) {
            if (!(columns.is_active ?? existing?.is_active ?? true)) {
              errors[`[${index}].reaction`] = [RULE_MESSAGES.onlyActiveApproved];
              continue;
            }
            await updateProposals(trx, approvalsToWithdraw(caseStates, existing?.id ?? null), NO_REACTION);
          }

          let row: ProposalRow;
          if (existing) {
            row = await updateProposal(trx, existing.id, columns);
          } else {
            row = await insertProposal(trx, { ...columns, case_guid: item.guid, service_provider_id: providerId });
            await updateProposals(trx, deactivatedBy(stateOf(row), caseStates), { is_active: false });
            const audience = { partnerId: parties.get(item.guid)!.partnerId };
            await recordEvent(trx, DOMAIN_EVENTS.COST_PROPOSAL_CREATED, item.guid, audience, toRecord(row));
          }
          savedIds.push(row.id);
          byCase.set(item.guid, await listProposals(trx, item.guid));
        }
        if (Object.keys(errors).length) throw new FieldsValidationError(errors);

        const saved = await proposalsByIds(trx, savedIds);
        assertAnswerFits(
          savedIds.map((id) => toRecord(saved.get(id)!)),
          (index) => `[${index}]`,
        );
        const answer = answerOf(savedIds.map((id) => saved.get(id)!));
        await keepIdempotentAnswer(trx, ctx, answer);
        return answer;
      });
    },

    async react(
      this: CostProposalsThis,
      ctx: Context,
      id: number,
      reaction: Reaction,
      name: string,
      comment: string | null,
      answerOf: AnswerOf<ProposalRow>,
    ) {
      const { row, parties } = await this.visibleProposal(ctx, id);
      const result = await inTransaction(this.db.knex, async (trx) => {
        const caseRows = await lockCases(trx, [row.case_guid]);
        const target = caseRows.find((candidate) => candidate.id === id);
        if (!target) throw new NotFoundError('Cost proposal not found');
        const decision = decideFeedback(stateOf(target), reaction);
        if (decision.kind === 'repeat') return { answer: answerOf(target), changed: false };
        if (decision.kind === 'conflict') {
          throw new ConflictError(decision.message, { id, reaction: target.reaction, isActive: target.is_active });
        }
        if (reaction === 'approved')
          await updateProposals(trx, approvalsToWithdraw(caseRows.map(stateOf), id), NO_REACTION);
        const updated = await updateProposal(trx, id, {
          reaction,
          reaction_date: new Date(),
          reaction_name: name,
          comment,
        });
        const audience = { providerId: parties.serviceProviderId ?? target.service_provider_id };
        await recordEvent(trx, DOMAIN_EVENTS.COST_PROPOSAL_REACTED, target.case_guid, audience, toRecord(updated));
        const answer = answerOf(updated);
        await keepIdempotentAnswer(trx, ctx, answer);
        return { answer, changed: true };
      });
      if (result.changed) this.relayOutbox();
      return result.answer;
    },
  },
};

export default CostProposalsService;
