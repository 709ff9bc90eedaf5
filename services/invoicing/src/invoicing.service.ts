/**
 * invoicing: invoices and credit notes that providers post on cases (spec 4.8), the find over
 * them, and the per-provider invoice statuses whose 'Send to client' flag tells the partner.
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  allOf,
  assertAnswerFits,
  caseCoresOf,
  callerOf,
  type CallerMeta,
  CURSOR_PARAM,
  DbMixin,
  DOMAIN_EVENTS,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
  IdempotencyMixin,
  inTransaction,
  itemsWithinBudget,
  jsonBytes,
  keepIdempotentAnswer,
  LIST_OFFSET_PARAM,
  listWithinBudget,
  type OutboxDbService,
  OlderPathsMixin,
  OutboxMixin,
  RECORD_MAX_BYTES,
  RECORD_TOO_LARGE,
  visibleCase,
  visibleCases,
  type World,
  writeEvent,
  outboxAndKeysPolicy,
  RetentionMixin,
  type ParamsOf,
} from '@hub/shared';
import { callerScope, invoiceDayMatches, keptValueMatches, translateFilters } from './filters';
import {
  columnsOf,
  INVOICE_STATUSES,
  INVOICES,
  invoiceOut,
  type InvoiceWithLinkRow,
  isDueDate,
  selectInvoices,
} from './invoices.store';
import { afterInvoice, findPage } from './invoice-pages';
import { FOUND_INVOICES, INVOICE_LIST } from './responses';

const SCHEMA = 'invoicing';

const OTHER_CASE = 'This externalId belongs to an invoice of another case';
const ALWAYS_VALUED = ['type', 'isActive', 'isSent', 'isPaid'] as const;

/** Most invoices one save call may carry: they are written in one transaction. */
const SAVE_MAX_INVOICES = 100;
export const FIND_PAGINATION = { defaultLimit: 10, maxLimit: 100 };

export type SaveInvoicesParams = ParamsOf<typeof SAVE_INVOICES_PARAMS>;
export type FindInvoicesParams = ParamsOf<typeof FIND_INVOICES_PARAMS>;
export type ListInvoicesParams = ParamsOf<typeof LIST_INVOICES_PARAMS>;

type InvoicingThis = OutboxDbService;

const number = { type: 'number' } as const;
const optional = <const T extends object>(rule: T) => ({ ...rule, optional: true, nullable: true }) as const;

const FIND_INVOICES_PARAMS = {
  filters: { type: 'any', optional: true },
  pagination: optional({
    type: 'object',
    props: {
      offset: { type: 'number', integer: true, min: 0, optional: true },
      limit: { type: 'number', integer: true, min: 1, max: FIND_PAGINATION.maxLimit, optional: true },
      after: CURSOR_PARAM,
    },
  } as const),
} as const;
const LIST_INVOICES_PARAMS = { guid: 'uuid', offset: LIST_OFFSET_PARAM } as const;

const invoiceRule = {
  type: 'object',
  props: {
    guid: 'uuid',
    externalId: 'string|min:1|max:255',
    type: { type: 'enum', values: ['invoice', 'credit note'], optional: true },
    customData: optional({ type: 'object' }),
    priceNet: optional(number),
    currency: optional({ type: 'string', pattern: /^[A-Za-z]{3}$/ }),
    isActive: { type: 'boolean', optional: true },
    isSent: { type: 'boolean', optional: true },
    isPaid: { type: 'boolean', optional: true },
    dueDate: optional({ type: 'string', max: 40 }),
    status: optional({ type: 'string', max: 255 }),
    details: optional({
      type: 'array',
      max: 1000,
      items: {
        type: 'object',
        props: {
          name: 'string|min:1|max:255',
          count: 'number|integer',
          article: optional({ type: 'string', max: 255 }),
          vatRate: number,
          vatAmount: number,
          priceExclVat: number,
          priceInclVat: number,
          totalAmountExclVat: number,
          totalAmountInclVat: number,
        },
      },
    }),
    linkedInvoice: optional({ type: 'string', min: 1, max: 255 }),
  },
} as const;
const SAVE_INVOICES_PARAMS = { items: { type: 'array', max: SAVE_MAX_INVOICES, items: invoiceRule } } as const;

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

const InvoicingService: ServiceSchema<ServiceSettingSchema, InvoicingThis> = {
  name: 'invoicing',
  mixins: [
    DbMixin(SCHEMA, path.join(__dirname, 'migrations')),
    OutboxMixin(SCHEMA),
    RetentionMixin(SCHEMA, outboxAndKeysPolicy(SCHEMA)),
    IdempotencyMixin(SCHEMA),
    // The product's earlier Invoices page documents both at v2, as today's at v3.
    OlderPathsMixin({ save: { v2: {} }, find: { v2: {} } }),
  ],
  settings: { rest: '' },
  metadata: {
    description: 'Invoices a provider posts on a case, and finding them.',
  },

  actions: {
    /** Creates or updates invoices by (externalId, provider), all or nothing. */
    save: {
      rest: 'POST /v3/invoices',
      access: ACCESS.PROVIDER,
      summary: 'Post invoices on cases',
      description:
        "Creates each invoice, or updates the one with the same `externalId` of this provider; all or none. `linkedInvoice` names (by externalId) the invoice of the same case this one corrects. An invoice whose status is marked 'Send to client' sends the partner a webhook.",
      response: INVOICE_LIST,
      params: SAVE_INVOICES_PARAMS,
      async handler(this: InvoicingThis, ctx: Context<SaveInvoicesParams>) {
        const caller = callerOf(ctx);
        const invoices = ctx.params.items;
        const details: FieldDetails = {};
        invoices.forEach((invoice, index) => {
          // An invoice is answered whole, with its case, in every list of invoices.
          if (jsonBytes(invoice) > RECORD_MAX_BYTES) details[`[${index}]`] = [RECORD_TOO_LARGE];
          if (typeof invoice.dueDate === 'string' && !isDueDate(invoice.dueDate))
            details[`[${index}].dueDate`] = [FIELD_MESSAGES.wrongFormat];
          // These always have a value: left out they keep theirs (or their default), null is no value.
          for (const field of ALWAYS_VALUED)
            if (invoice[field] === null) details[`[${index}].${field}`] = [FIELD_MESSAGES.wrongFormat];
        });
        if (Object.keys(details).length) throw new FieldsValidationError(details);
        if (invoices.length === 0) return [];

        const guids = unique(invoices.map((invoice) => invoice.guid));
        const parties = await visibleCases(ctx, guids);
        const cores = await caseCoresOf(ctx, guids);
        const providerId = caller.providerId!;

        const saved = await inTransaction(this.db.knex, async (trx) => {
          const ids: number[] = [];
          for (const [index, invoice] of invoices.entries()) {
            const party = parties.get(invoice.guid)!;
            const columns = columnsOf(invoice);
            if (invoice.linkedInvoice === null) columns.linked_invoice_id = null;
            else if (invoice.linkedInvoice !== undefined) {
              // A credit note refers to an invoice of the same provider on the same case.
              const linked = (await trx(INVOICES)
                .where({ provider_id: providerId, external_id: invoice.linkedInvoice })
                .first('id', 'guid')) as { id: number; guid: string } | undefined;
              if (!linked || linked.guid !== invoice.guid || invoice.linkedInvoice === invoice.externalId) {
                throw new FieldsValidationError({ [`[${index}].linkedInvoice`]: [FIELD_MESSAGES.notAnOption] });
              }
              columns.linked_invoice_id = linked.id;
            }
            const caseColumns = {
              case_id: party.id,
              guid: invoice.guid,
              partner_id: party.partnerId,
              provider_id: party.serviceProviderId,
            };
            // An externalId names one invoice of one case: sent for another case it is refused, never moved.
            const [row] = (await trx(INVOICES)
              .insert({ external_id: invoice.externalId, ...caseColumns, ...columns })
              .onConflict(['provider_id', 'external_id'])
              .merge({ ...columns, updated_at: trx.fn.now() })
              .where(`${INVOICES}.guid`, invoice.guid)
              .returning('id')) as Array<{ id: number }>;
            if (!row) throw new FieldsValidationError({ [`[${index}].externalId`]: [OTHER_CASE] });
            ids.push(row.id);
          }

          const rows = (await selectInvoices(trx).whereIn('i.id', unique(ids))) as InvoiceWithLinkRow[];
          const byId = new Map(rows.map((row) => [row.id, invoiceOut(row, cores.get(row.guid) ?? null)]));
          const sendToClient = new Set(
            (await trx(INVOICE_STATUSES)
              .where({ provider_id: providerId, send_to_client: true })
              .pluck('key')) as string[],
          );
          let events = 0;
          for (const row of rows.sort((a, b) => a.id - b.id)) {
            if (row.status === null || !sendToClient.has(row.status)) continue;
            await writeEvent(trx, SCHEMA, {
              type: DOMAIN_EVENTS.INVOICE_SAVED,
              caseGuid: row.guid,
              audience: { partnerId: row.partner_id },
              payload: { ...byId.get(row.id)! },
            });
            events += 1;
          }
          const answer = ids.map((id) => byId.get(id)!);
          assertAnswerFits(answer, (index) => `[${index}]`);
          await keepIdempotentAnswer(trx, ctx, answer);
          return { answer, events };
        });
        if (saved.events) this.relayOutbox();
        return saved.answer;
      },
    },

    /** Invoices of the cases the caller may see, filtered and paged in SQL. */
    find: {
      rest: 'POST /v3/invoices/find',
      access: ACCESS.PARTNER_PROVIDER,
      summary: 'Find invoices',
      description:
        "`filters` on the invoice's fields (a value, or `$lt`/`$gt`/`$in`...: docs/invoices.md), paged by `pagination` (`offset` and `limit`, or the `after` cursor a page's `next` gives). Only the caller's own invoices.",
      response: FOUND_INVOICES,
      readOnly: true,
      params: FIND_INVOICES_PARAMS,
      async handler(this: InvoicingThis, ctx: Context<FindInvoicesParams>) {
        const caller = callerOf(ctx);
        const { filters } = ctx.params;
        const where = allOf([callerScope(caller), translateFilters(filters)]);
        const { offset, limit, after } = ctx.params.pagination ?? {};
        const counted = keptValueMatches(caller, filters) ?? invoiceDayMatches(caller, filters);
        const page = await findPage(this.db.knex, where, counted, {
          after: after === undefined ? undefined : afterInvoice(after, offset),
          offset: offset ?? 0,
          limit: limit ?? FIND_PAGINATION.defaultLimit,
        });
        const cores = await caseCoresOf(
          ctx,
          page.rows.map((row) => row.guid),
        );
        // Within the answer budget too: a page of large invoices ends early, and its next continues it.
        const data = itemsWithinBudget(page.rows.map((row) => invoiceOut(row, cores.get(row.guid) ?? null)));
        const next = data.length < page.rows.length ? page.cursors[data.length - 1] : page.next;
        return { data, pagination: { count: page.count, offset: page.offset, next } };
      },
    },

    list: {
      rest: 'GET /v3/invoices',
      access: ACCESS.PARTNER_PROVIDER,
      summary: "A case's invoices",
      description:
        'Oldest first, from the `offset`-th (0 when left out). The list holds at most 512 KiB of invoices: when the rest do not fit, it ends early and a `Link` header names the rest (`<?guid=...&offset=N>; rel="next"`).',
      response: INVOICE_LIST,
      params: LIST_INVOICES_PARAMS,
      async handler(this: InvoicingThis, ctx: Context<ListInvoicesParams, CallerMeta>) {
        const caller = callerOf(ctx);
        const { guid, offset = 0 } = ctx.params;
        await visibleCase(ctx, guid);
        const scope = callerScope(caller);
        const rows = (await selectInvoices(this.db.knex)
          .where('i.guid', guid)
          .whereRaw(scope.sql, scope.bindings)
          .orderBy([{ column: 'i.created_at' }, { column: 'i.id' }])
          .offset(offset)) as InvoiceWithLinkRow[];
        const cores = await caseCoresOf(
          ctx,
          rows.map((row) => row.guid),
        );
        const invoices = rows.map((row) => invoiceOut(row, cores.get(row.guid) ?? null));
        return listWithinBudget(ctx.meta, invoices, { guid }, offset);
      },
    },

    /** The world's invoice statuses: a provider that names its list gets exactly that list. */
    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: InvoicingThis, ctx: Context<{ world: World }>) {
        const providers = (ctx.params.world.providers ?? []).filter(
          (provider) => provider.invoiceStatuses !== undefined,
        );
        await inTransaction(this.db.knex, async (trx) => {
          for (const provider of providers) {
            await trx(INVOICE_STATUSES).where({ provider_id: provider.id }).delete();
            // A key named twice takes its last entry, as a later file overrides an earlier one.
            const statuses = new Map(provider.invoiceStatuses!.map((status) => [status.key, status]));
            if (statuses.size === 0) continue;
            await trx(INVOICE_STATUSES).insert(
              [...statuses.values()].map((status) => ({
                provider_id: provider.id,
                key: status.key,
                name: status.name ?? null,
                send_to_client: status.sendToClient,
              })),
            );
          }
        });
        return true;
      },
    },
  },
};

export default InvoicingService;
