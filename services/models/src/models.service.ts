/**
 * models: the model registry (spec 4.3). Search by manufacturer, product type, a non-strict model
 * text or a strict mpn, and a bulk upsert that writes a whole batch or nothing. Manufacturers and
 * product types are the catalog's; the registry keeps their ids and asks the catalog for the rest.
 */
import path from 'node:path';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  assertAnswerFits,
  DbMixin,
  type DbService,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
  findNamed,
  IdempotencyMixin,
  idempotencyKeysRetention,
  keepIdempotentAnswer,
  LIST_OFFSET_PARAM,
  listWithinBudget,
  MODEL_ENTRY_RULES,
  OlderPathsMixin,
  type ParamsOf,
  PG_ERRORS,
  inTransaction,
  type StoredReferences,
  type World,
  RetentionMixin,
} from '@hub/shared';
import { References } from './references';
import { resolveName, rowsTouchedBy, searchModels, writeBatch } from './models.store';
import {
  CONTAINS_MIN_LENGTH,
  type ModelRow,
  type ModelWrite,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SIMILAR_CANDIDATES_MAX,
  UPSERT_BATCH_MAX,
  MESSAGES,
  planBatch,
} from './rules';
import { MODELS } from './responses';

type Reference = number | string;

export type SearchParams = ParamsOf<typeof SEARCH_PARAMS>;

export interface ModelIn extends Omit<ModelWrite, 'manufacturerId' | 'productTypeId'> {
  manufacturer: Reference;
  productType: Reference;
}

export type UpsertParams = ParamsOf<typeof UPSERT_PARAMS>;

type ModelsThis = Service &
  DbService & {
    upsert(ctx: Context, entries: ModelIn[], answered?: boolean): Promise<ReturnType<typeof modelOut>[]>;
  };

const reference = { type: 'multi', optional: true, rules: MODEL_ENTRY_RULES.manufacturer.rules } as const;
const searchText = { type: 'string', max: 255, optional: true } as const;
const SEARCH_PARAMS = {
  manufacturer: reference,
  productType: reference,
  model: searchText,
  mpn: searchText,
  limit: { type: 'number', integer: true, min: 1, max: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT },
  offset: LIST_OFFSET_PARAM,
} as const;
const UPSERT_PARAMS = {
  items: {
    type: 'array',
    max: UPSERT_BATCH_MAX,
    items: {
      type: 'object',
      props: { id: { type: 'number', integer: true, positive: true, optional: true }, ...MODEL_ENTRY_RULES },
    },
  },
} as const;

function modelOut(row: ModelRow, references: References) {
  return {
    id: row.id,
    name: row.name,
    aliases: row.aliases,
    mpn: row.mpn,
    manufacturer: references.manufacturer(row.manufacturerId),
    manufacturerId: row.manufacturerId,
    productType: references.productType(row.productTypeId),
    productTypeId: row.productTypeId,
    tags: row.tags,
    countryOfOrigin: row.countryOfOrigin,
    value: row.value,
    weight: row.weight,
    taricSE: row.taricSE,
    taricNO: row.taricNO,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** Which entry and field a unique violation from a concurrent writer belongs to. */
function uniqueViolationDetails(
  err: { constraint?: string; detail?: string },
  entries: ModelWrite[],
): FieldDetails | null {
  const field =
    err.constraint === 'models_name_manufacturer'
      ? 'name'
      : err.constraint === 'models_mpn_manufacturer'
        ? 'mpn'
        : null;
  if (!field) return null;
  const key = /\)=\((.*), (\d+)\)/.exec(err.detail ?? '');
  const index = key
    ? entries.findIndex((entry) => entry[field].toLowerCase() === key[1] && entry.manufacturerId === Number(key[2]))
    : -1;
  return { [`items[${Math.max(index, 0)}].${field}`]: [field === 'name' ? MESSAGES.nameTaken : MESSAGES.mpnTaken] };
}

const ModelsService: ServiceSchema<ServiceSettingSchema, ModelsThis> = {
  name: 'models',
  mixins: [
    DbMixin('models', path.join(__dirname, 'migrations')),
    RetentionMixin('models', ({ idempotencyKeyTtlMs }) => {
      const keys = idempotencyKeysRetention('models', idempotencyKeyTtlMs);
      return { rules: [keys.rule], aged: [keys.aged] };
    }),
    OlderPathsMixin({ search: { v2: {} }, upsert: { v2: {} } }),
    IdempotencyMixin('models'),
  ],
  settings: { rest: '' },
  metadata: {
    description:
      'The model registry: product models by manufacturer and product type, searched by name, part number or alias.',
  },
  dependencies: ['catalog'],

  actions: {
    search: {
      rest: 'GET /v3/models',
      access: ACCESS.ANY,
      summary: 'Search models',
      response: MODELS,
      description: [
        '`manufacturer` and `productType` (id or name) and `mpn` (the whole mpn, ignoring case) filter; with no filter the answer is `[]`.',
        '`model` searches name, mpn and aliases ignoring case, ranked best first:',
        '1. a name, mpn or alias equal to the query (words one space apart), by name;',
        '2. a name or mpn starting with the query, alphabetically by that name or mpn;',
        '3. only when those fill less than `limit`: models holding every word of the query anywhere in name, mpn or aliases, by trigram similarity.',
        `Tier 3 ranks at most ${SIMILAR_CANDIDATES_MAX} such models, so when more hold the words a longer query finds the best ones; a query whose words are all shorter than ${CONTAINS_MIN_LENGTH} characters skips it.`,
        '',
        'The answer starts at the `offset`-th model of that order (0 when left out) and holds at most 512 KiB of models: when the `limit` models do not fit, it ends early and a `Link` header names the rest (`<?model=...&limit=...&offset=N>; rel="next"`).',
      ].join('\n'),
      params: SEARCH_PARAMS,
      async handler(this: ModelsThis, ctx: Context<SearchParams>) {
        const { manufacturer, productType, limit, offset = 0 } = ctx.params;
        const model = ctx.params.model?.trim() || undefined;
        const mpn = ctx.params.mpn?.trim() || undefined;
        if (manufacturer === undefined && productType === undefined && model === undefined && mpn === undefined)
          return [];

        const filters = await References.load(ctx, {
          manufacturers: manufacturer === undefined ? [] : [manufacturer],
          productTypes: productType === undefined ? [] : [productType],
        });
        const details: FieldDetails = {};
        const manufacturerRecord = manufacturer === undefined ? undefined : filters.manufacturer(manufacturer);
        const productTypeRecord = productType === undefined ? undefined : filters.productType(productType);
        if (manufacturerRecord === null) details.manufacturer = [FIELD_MESSAGES.notAnOption];
        if (productTypeRecord === null) details.productType = [FIELD_MESSAGES.notAnOption];
        if (Object.keys(details).length) throw new FieldsValidationError(details);

        const rows = await searchModels(this.db.knex, {
          manufacturerId: manufacturerRecord?.id,
          productTypeId: productTypeRecord?.id,
          model,
          mpn,
          limit,
          offset,
        });
        // The filter's records are known already; ask the catalog only for the others.
        const missing = (ids: number[], known?: { id: number } | null) =>
          [...new Set(ids)].filter((id) => id !== known?.id);
        const references =
          manufacturerRecord && productTypeRecord
            ? filters
            : (
                await References.load(ctx, {
                  manufacturers: missing(
                    rows.map((row) => row.manufacturerId),
                    manufacturerRecord,
                  ),
                  productTypes: missing(
                    rows.map((row) => row.productTypeId),
                    productTypeRecord,
                  ),
                })
              ).adopt(filters);
        const models = rows.map((row) => modelOut(row, references));
        return listWithinBudget(ctx.meta, models, { manufacturer, productType, model, mpn, limit }, offset);
      },
    },

    upsert: {
      rest: 'POST /v3/models',
      access: ACCESS.ANY,
      summary: 'Create or update models',
      description:
        'Each model with an `id` updates that model (a rename needs it); one without is matched by name and manufacturer, else created. Name and mpn are unique per manufacturer: a clash is a 400 naming the entry. Answers the models written, in the order sent.',
      response: MODELS,
      params: UPSERT_PARAMS,
      handler(this: ModelsThis, ctx: Context<UpsertParams>) {
        return this.upsert(ctx, ctx.params.items, true);
      },
    },

    /** Internal: the model a name, mpn or alias names exactly, for routing's `model` parameter. */
    resolveName: {
      visibility: 'public',
      params: { name: { type: 'string', max: 255 } },
      handler(this: ModelsThis, ctx: Context<{ name: string }>) {
        return resolveName(this.db.knex, ctx.params.name);
      },
    },

    /**
     * Internal: whether the world's `models` would load, asked before any part of a world is
     * written: names and mpns unique per manufacturer among the entries and the stored models,
     * with the manufacturers and product types the catalog will hold after the load (the
     * whole-file check has found every one).
     */
    checkWorld: {
      visibility: 'public',
      params: { world: { type: 'object' }, references: { type: 'object', optional: true } },
      async handler(this: ModelsThis, ctx: Context<{ world: World; references?: StoredReferences }>) {
        // References are sent whenever the file has models.
        if (!ctx.params.references) return true;
        const { manufacturers, productTypes } = ctx.params.references;
        const writes: ModelWrite[] = ((ctx.params.world.models ?? []) as ModelIn[]).map(
          ({ manufacturer, productType, ...fields }) => ({
            ...fields,
            manufacturerId: findNamed(manufacturers, manufacturer)?.id ?? 0,
            productTypeId: findNamed(productTypes, productType)?.id ?? 0,
          }),
        );
        const { details } = planBatch(writes, await rowsTouchedBy(this.db.knex, writes));
        if (Object.keys(details).length) {
          throw new FieldsValidationError(
            Object.fromEntries(
              Object.entries(details).map(([field, messages]) => [field.replace(/^items/, 'models'), messages]),
            ),
          );
        }
        return true;
      },
    },

    /** Internal: upserts the world's `models` (matched by name, so a second load changes nothing). */
    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: ModelsThis, ctx: Context<{ world: World }>) {
        const models = (ctx.params.world.models ?? []) as ModelIn[];
        for (let start = 0; start < models.length; start += UPSERT_BATCH_MAX) {
          await this.upsert(ctx, models.slice(start, start + UPSERT_BATCH_MAX));
        }
        return true;
      },
    },
  },

  methods: {
    /**
     * Resolves the batch's manufacturers and product types (one catalog call, before the
     * transaction: embedded mode's single connection must not wait inside it), then checks and
     * writes the whole batch in one transaction. A batch `answered` to its caller takes no more
     * models than one answer holds.
     */
    async upsert(this: ModelsThis, ctx: Context, entries: ModelIn[], answered = false) {
      if (!entries.length) return [];
      const references = await References.load(ctx, {
        manufacturers: entries.map((entry) => entry.manufacturer),
        productTypes: entries.map((entry) => entry.productType),
      });
      const details: FieldDetails = {};
      const writes: ModelWrite[] = entries.map((entry, index) => {
        const { manufacturer: manufacturerKey, productType: productTypeKey, ...fields } = entry;
        const manufacturer = references.manufacturer(manufacturerKey);
        const productType = references.productType(productTypeKey);
        if (!manufacturer) details[`items[${index}].manufacturer`] = [FIELD_MESSAGES.notAnOption];
        if (!productType) details[`items[${index}].productType`] = [FIELD_MESSAGES.notAnOption];
        return { ...fields, manufacturerId: manufacturer?.id ?? 0, productTypeId: productType?.id ?? 0 };
      });
      if (Object.keys(details).length) throw new FieldsValidationError(details);

      try {
        return await inTransaction(this.db.knex, async (trx) => {
          const plan = planBatch(writes, await rowsTouchedBy(trx, writes));
          if (Object.keys(plan.details).length) throw new FieldsValidationError(plan.details);
          const upserted = (await writeBatch(trx, plan.writes)).map((row) => modelOut(row, references));
          if (answered) assertAnswerFits(upserted, (index) => `items[${index}]`);
          await keepIdempotentAnswer(trx, ctx, upserted);
          return upserted;
        });
      } catch (err) {
        if ((err as { code?: string }).code === PG_ERRORS.UNIQUE_VIOLATION) {
          const violation = uniqueViolationDetails(err as { constraint?: string; detail?: string }, writes);
          if (violation) throw new FieldsValidationError(violation);
        }
        throw err;
      }
    },
  },
};

export default ModelsService;
