/** What the case-message endpoints answer, for the API reference (the actions' `response`). */
import { arrayOf, GUID, ID, type JsonSchema, record, TIMESTAMP } from '@hub/shared';
import { MESSAGE_TYPES } from './messages';

const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };

/** A message's fields other than its type, which v1 and v2 name `messageType`. */
const MESSAGE_FIELDS: Record<string, JsonSchema> = {
  id: ID,
  caseId: ID,
  guid: { ...GUID, description: "The case's guid" },
  senderAccountId: ID,
  senderType: { enum: ['partner', 'provider', null] },
  content: TEXT_OR_NULL,
  externalId: TEXT_OR_NULL,
  parentMessageId: { type: ['integer', 'null'], description: 'The message this one answers' },
  userEmail: TEXT_OR_NULL,
  userName: TEXT_OR_NULL,
  isInternal: { type: 'boolean', description: "The provider's own note: partners never see it" },
  confirmedAt: { type: ['string', 'null'], format: 'date-time' },
  declaredAt: TIMESTAMP,
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
};
const MESSAGE_TYPE: JsonSchema = { enum: MESSAGE_TYPES };

const CASE_MESSAGE: JsonSchema = { title: 'CaseMessage', ...record({ ...MESSAGE_FIELDS, type: MESSAGE_TYPE }) };
const CASE_MESSAGE_OLDER: JsonSchema = {
  title: 'CaseMessageV2',
  ...record({ ...MESSAGE_FIELDS, messageType: MESSAGE_TYPE }),
};

const EXAMPLE_FIELDS = {
  id: 7,
  caseId: 311,
  guid: 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f',
  senderAccountId: 2,
  senderType: 'partner',
  content: 'When will the phone be ready?',
  externalId: null,
  parentMessageId: null,
  userEmail: null,
  userName: 'Kari',
  isInternal: false,
  confirmedAt: null,
  declaredAt: '2026-11-02T09:14:03.120Z',
  createdAt: '2026-11-02T09:14:03.120Z',
  updatedAt: '2026-11-02T09:14:03.120Z',
};
const EXAMPLE = { ...EXAMPLE_FIELDS, type: 'statusRequest' };
const OLDER_EXAMPLE = { ...EXAMPLE_FIELDS, messageType: 'statusRequest' };

export const ONE_MESSAGE: JsonSchema = { ...CASE_MESSAGE, examples: [EXAMPLE] };
export const MESSAGE_LIST: JsonSchema = { ...arrayOf(CASE_MESSAGE, 'Oldest first'), examples: [[EXAMPLE]] };
export const ONE_MESSAGE_OLDER: JsonSchema = { ...CASE_MESSAGE_OLDER, examples: [OLDER_EXAMPLE] };
export const MESSAGE_LIST_OLDER: JsonSchema = { ...arrayOf(CASE_MESSAGE_OLDER), examples: [[OLDER_EXAMPLE]] };

export const CONFIRMED: JsonSchema = {
  ...record({
    success: { const: true },
    errors: arrayOf(
      record({ id: { type: 'integer' }, message: { enum: ['Not found', 'No access'] } }),
      'The ids not confirmed, each with why',
    ),
    data: { type: 'object' },
  }),
  examples: [{ success: true, errors: [{ id: 99, message: 'Not found' }], data: {} }],
};
