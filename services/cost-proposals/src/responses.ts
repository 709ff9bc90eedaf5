/** What the cost-proposal endpoints answer, for the API reference (the actions' `response`). */
import { arrayOf, GUID, ID, type JsonSchema, record, TIMESTAMP } from '@hub/shared';

const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };

const DETAIL: JsonSchema = {
  title: 'CostProposalDetail',
  type: 'object',
  properties: {
    line: { type: 'integer', description: 'Counter from 1' },
    text: { type: 'string' },
    type: { type: 'string', description: 'Free text; `labor`, `shipping`, `sparePart` and `deductible` are usual' },
    priceNet: { type: 'number' },
    quantity: { type: 'number' },
  },
};

const DETAILS: JsonSchema = { type: ['array', 'null'], items: DETAIL };
const DATE_VALID_UNTIL: JsonSchema = { ...TEXT_OR_NULL, format: 'date' };

/** A cost proposal (spec 2). */
const COST_PROPOSAL: JsonSchema = {
  title: 'CostProposal',
  ...record({
    id: ID,
    guid: { ...GUID, description: "The case's guid" },
    externalId: { type: ['array', 'null'], items: { type: 'string' } },
    name: { type: 'string', description: 'The work proposed: Repair, RUR, Scrap, return, ...' },
    priceNet: { type: ['number', 'null'] },
    currency: TEXT_OR_NULL,
    timeStamp: { ...TEXT_OR_NULL, description: 'When the provider made it, `YYYY-MM-DD HH:mm:ss.SSS`' },
    isActive: { type: 'boolean', description: 'Whether it may be approved' },
    reaction: { enum: ['approved', 'rejected', null] },
    reactionDate: {
      ...TEXT_OR_NULL,
      description: 'When it was approved or rejected, `YYYY-MM-DD HH:mm:ss.SSS` in UTC',
    },
    reactionName: { ...TEXT_OR_NULL, description: 'Who reacted' },
    comment: TEXT_OR_NULL,
    dateValidUntil: DATE_VALID_UNTIL,
    details: DETAILS,
    serviceProviderId: ID,
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
  }),
};

const EXAMPLE = {
  id: 41,
  guid: 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f',
  externalId: ['WO-7'],
  name: 'Repair',
  priceNet: 1490,
  currency: 'NOK',
  timeStamp: '2026-11-02 10:40:51.004',
  isActive: true,
  reaction: null,
  reactionDate: null,
  reactionName: null,
  comment: null,
  dateValidUntil: null,
  details: [{ line: 1, text: 'Display', type: 'sparePart', priceNet: 1490, quantity: 1 }],
  serviceProviderId: 10,
  createdAt: '2026-11-02T10:40:51.004Z',
  updatedAt: '2026-11-02T10:40:51.004Z',
};

export const COST_PROPOSALS: JsonSchema = { ...arrayOf(COST_PROPOSAL, 'Oldest first'), examples: [[EXAMPLE]] };
export const ONE_COST_PROPOSAL: JsonSchema = {
  ...COST_PROPOSAL,
  examples: [{ ...EXAMPLE, reaction: 'approved', reactionDate: '2026-11-02 12:03:11.500', reactionName: 'Kari' }],
};
export const DELETED_COST_PROPOSAL: JsonSchema = { ...COST_PROPOSAL, examples: [EXAMPLE] };
export const SAVED_COST_PROPOSALS: JsonSchema = {
  ...record({ data: arrayOf(COST_PROPOSAL, 'The proposals created or updated, in the order sent') }),
  examples: [{ data: [EXAMPLE] }],
};

/** A cost proposal as v1 answered it: its price as text, `dateAccepted` and `approverName` for the reaction. */
const COST_PROPOSAL_V1: JsonSchema = {
  title: 'CostProposalV1',
  ...record({
    id: ID,
    externalId: { type: ['array', 'null'], items: { type: 'string' } },
    name: { type: 'string' },
    priceNet: { ...TEXT_OR_NULL, pattern: '^-?\\d+(\\.\\d+)?$' },
    currency: TEXT_OR_NULL,
    dateValidUntil: DATE_VALID_UNTIL,
    isActive: { type: 'boolean' },
    dateAccepted: { type: ['string', 'null'], format: 'date-time' },
    approverName: TEXT_OR_NULL,
    details: DETAILS,
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
    serviceProviderId: ID,
  }),
};

const V1_EXAMPLE = {
  id: 41,
  externalId: ['WO-7'],
  name: 'Repair',
  priceNet: '1490.00',
  currency: 'NOK',
  dateValidUntil: null,
  isActive: true,
  dateAccepted: null,
  approverName: null,
  details: null,
  createdAt: '2026-11-02T10:40:51.004Z',
  updatedAt: '2026-11-02T10:40:51.004Z',
  serviceProviderId: 10,
};

export const COST_PROPOSALS_V1: JsonSchema = { ...arrayOf(COST_PROPOSAL_V1), examples: [[V1_EXAMPLE]] };
export const SAVED_COST_PROPOSALS_V1: JsonSchema = {
  ...record({ data: arrayOf(COST_PROPOSAL_V1) }),
  examples: [{ data: [V1_EXAMPLE] }],
};
export const APPROVED_COST_PROPOSAL_V1: JsonSchema = {
  ...record({ data: COST_PROPOSAL_V1 }),
  examples: [{ data: { ...V1_EXAMPLE, dateAccepted: '2026-11-02T12:03:11.500Z', approverName: 'Kari' } }],
};
