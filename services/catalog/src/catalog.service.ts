/**
 * catalog: the directory (partners, providers, departments, accounts) and the reference data a
 * booking may use; it also loads world files, handing each part to the service that owns it.
 */
import path from 'node:path';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  DbMixin,
  type DbService,
  FieldsValidationError,
  findNamed,
  INTEGER_COLUMN_MAX,
  ServiceMissingError,
  NotFoundError,
  inTransaction,
  OlderPathsMixin,
  type OlderPaths,
  referencesAfterLoad,
  validateWorld,
  worldKeysPresent,
  WORLD_PART_OWNERS,
  type ParamsOf,
  PerWorld,
  type World,
  WorldCacheMixin,
  RetentionMixin,
} from '@hub/shared';
import {
  applyDirectory,
  type Directory,
  findAccounts,
  findCallerByToken,
  findDepartments,
  findPartners,
  findProviders,
  insertAccount,
  listAccounts,
  loadDirectory,
  recordsOf,
} from './directory.store';
import { lookupActions, OPTIONAL_BOOKING_TYPE } from './lookups.actions';
import {
  applyReference,
  loadReference,
  manufacturerOut,
  productTypeOut,
  type NamedRecord,
  type Reference,
} from './reference.store';
import { ACCOUNTS, CREATED_ACCOUNT, ONE_DEPARTMENT, ONE_PARTY, PARTIES, WORLD_LOADED } from './responses';
import { applyStatusRules, findStatusRules } from './status-rules';
import { newToken } from './tokens';

const ID_PARAMS = { id: 'number|integer|positive' } as const;
const PROVIDERS_PARAMS = {
  ids: { type: 'string', optional: true, pattern: /^\s*(\d+(\s*,\s*\d+)*)?\s*$/ },
} as const;
const CREATE_ACCOUNT_PARAMS = {
  name: 'string|min:1|max:255',
  role: { type: 'enum', values: ['partner', 'provider', 'admin'] },
  partnerId: { type: 'number', integer: true, positive: true, optional: true },
  providerId: { type: 'number', integer: true, positive: true, optional: true },
  canForceProvider: { type: 'boolean', optional: true },
  allowAllProviders: { type: 'boolean', optional: true },
} as const;
export type IdParams = ParamsOf<typeof ID_PARAMS>;
export type ProvidersParams = ParamsOf<typeof PROVIDERS_PARAMS>;
export type CreateAccountParams = ParamsOf<typeof CREATE_ACCOUNT_PARAMS>;

/**
 * Services whose `applyWorld` a world load calls, in this order; others follow by name. A load
 * refuses a file with a part whose owner (WORLD_PART_OWNERS) is not running.
 */
const WORLD_ORDER = ['catalog', 'routing', 'models'];

type CatalogThis = Service &
  DbService & {
    referenceData: PerWorld<Reference>;
    directoryData: PerWorld<Directory>;
    /** The reference data, read once per world. */
    reference(): Promise<Reference>;
    /** Partners, providers and departments by id, read once per world. */
    directory(): Promise<Directory>;
    /** The running services with a world action (`applyWorld`, or `checkWorld`), in load order. */
    worldOwners(method?: string): string[];
    modelReferenceRecords(
      withManufacturers: boolean,
      withProductTypes: boolean,
    ): Promise<{ manufacturers: NamedRecord[]; productTypes: NamedRecord[] }>;
  };

/**
 * The documented older paths of the lookups: v1's (the root "Service order API" page, its oldest
 * `brands` and a shipping-methods lookup without bookingType) and v2's of each lookup.
 */
const OLDER_PATHS: OlderPaths = {
  brands: {
    of: 'manufacturers',
    v1: { rest: 'GET /v1/brands', renamed: { manufacturer: 'brand' }, params: { bookingType: OPTIONAL_BOOKING_TYPE } },
    v2: { rest: 'GET /v2/brands', renamed: { manufacturer: 'brand' }, params: { bookingType: OPTIONAL_BOOKING_TYPE } },
  },
  manufacturers: { v1: {}, v2: {} },
  serviceTypes: { v1: {}, v2: {} },
  productTypes: { v1: {}, v2: {} },
  serviceLocations: { v1: {}, v2: {} },
  shippingMethods: { v1: { params: { bookingType: OPTIONAL_BOOKING_TYPE } }, v2: {} },
  accessories: { v1: {}, v2: {} },
  pickupDates: { v1: {}, v2: {} },
  pickupDatesExtended: { v2: {} },
  partner: { v2: {} },
  provider: { v2: {} },
  providers: { v2: {} },
  department: { v2: {} },
};

/** knex's name for the unique index of account token digests (the catalog schema's migration). */
const ACCOUNT_TOKEN_UNIQUE = 'accounts_token_sha256_unique';
const TOKEN_TAKEN = 'a token of the file belongs to an account the file does not name';

const CatalogService: ServiceSchema<ServiceSettingSchema, CatalogThis> = {
  name: 'catalog',
  mixins: [
    DbMixin('catalog', path.join(__dirname, 'migrations')),
    RetentionMixin('catalog'),
    WorldCacheMixin,
    OlderPathsMixin(OLDER_PATHS),
  ],
  settings: { rest: '' },
  metadata: {
    description:
      'Reference data a booking may use (manufacturers, service, product types, locations, accessories, shipping methods and pickup dates), the parties, accounts and world loads.',
  },

  actions: {
    ...lookupActions,

    partner: {
      rest: 'GET /v3/partner',
      access: ACCESS.ANY,
      summary: 'A partner',
      response: ONE_PARTY,
      cache: { keys: ['id'] },
      params: ID_PARAMS,
      async handler(this: CatalogThis, ctx: Context<IdParams>) {
        const [partner] = await findPartners(this.db.knex, [ctx.params.id]);
        if (!partner) throw new NotFoundError('Partner not found');
        return partner;
      },
    },

    provider: {
      rest: 'GET /v3/provider',
      access: ACCESS.ANY,
      summary: 'A provider',
      response: ONE_PARTY,
      cache: { keys: ['id'] },
      params: ID_PARAMS,
      async handler(this: CatalogThis, ctx: Context<IdParams>) {
        const [provider] = await findProviders(this.db.knex, [ctx.params.id]);
        if (!provider) throw new NotFoundError('Provider not found');
        return provider;
      },
    },

    /** Providers by comma-separated ids; every provider when `ids` is absent or empty. */
    providers: {
      rest: 'GET /v3/providers',
      access: ACCESS.ANY,
      summary: 'Providers by id',
      description: '`ids` is a comma-separated list; without it, every provider.',
      response: PARTIES,
      cache: { keys: ['ids'] },
      params: PROVIDERS_PARAMS,
      async handler(this: CatalogThis, ctx: Context<ProvidersParams>) {
        const listed = ctx.params.ids?.trim();
        // An id beyond the id column's range names no provider.
        const ids = listed
          ? listed
              .split(',')
              .map((id) => Number(id.trim()))
              .filter((id) => id <= INTEGER_COLUMN_MAX)
          : undefined;
        return findProviders(this.db.knex, ids);
      },
    },

    department: {
      rest: 'GET /v3/department',
      access: ACCESS.ANY,
      summary: "A provider's department",
      description: 'Answered in `data`, as the spec shows.',
      response: ONE_DEPARTMENT,
      cache: { keys: ['id'] },
      params: ID_PARAMS,
      async handler(this: CatalogThis, ctx: Context<IdParams>) {
        const [department] = await findDepartments(this.db.knex, [ctx.params.id]);
        if (!department) throw new NotFoundError('Department not found');
        const { providerId: _providerId, ...data } = department;
        return { data };
      },
    },

    /** Internal: the lookup the gateway makes for each new token it sees. */
    resolveToken: {
      visibility: 'public',
      params: { token: 'string|min:1|max:512' },
      handler(this: CatalogThis, ctx: Context<{ token: string }>) {
        return findCallerByToken(this.db.knex, ctx.params.token);
      },
    },

    /** Internal: parties in one call, for services that render cases. */
    parties: {
      visibility: 'public',
      params: {
        partnerIds: { type: 'array', items: 'number|integer', default: [] },
        providerIds: { type: 'array', items: 'number|integer', default: [] },
        departmentIds: { type: 'array', items: 'number|integer', default: [] },
      },
      async handler(
        this: CatalogThis,
        ctx: Context<{ partnerIds: number[]; providerIds: number[]; departmentIds: number[] }>,
      ) {
        const directory = await this.directory();
        return {
          partners: recordsOf(directory.partners, ctx.params.partnerIds),
          providers: recordsOf(directory.providers, ctx.params.providerIds),
          departments: recordsOf(directory.departments, ctx.params.departmentIds),
        };
      },
    },

    /**
     * Internal: each partner's status mapping and blacklist (how it sees provider status keys),
     * for case reads and status webhooks; a partner with none gets empty ones.
     */
    statusRules: {
      visibility: 'public',
      cache: { keys: ['partnerIds'] },
      params: { partnerIds: { type: 'array', items: 'number|integer|positive', max: 1000 } },
      handler(this: CatalogThis, ctx: Context<{ partnerIds: number[] }>) {
        return findStatusRules(this.db.knex, ctx.params.partnerIds);
      },
    },

    /** Internal: accounts by id in one call (who a webhook subscription belongs to). */
    accounts: {
      visibility: 'public',
      params: { ids: { type: 'array', items: 'number|integer|positive' } },
      handler(this: CatalogThis, ctx: Context<{ ids: number[] }>) {
        return findAccounts(this.db.knex, ctx.params.ids);
      },
    },

    listAccounts: {
      rest: 'GET /admin/accounts',
      access: ACCESS.ADMIN,
      summary: 'Every account',
      description: 'Tokens are stored hashed and never shown again.',
      response: ACCOUNTS,
      handler(this: CatalogThis) {
        return listAccounts(this.db.knex).then((data) => ({ data }));
      },
    },

    createAccount: {
      rest: 'POST /admin/accounts',
      access: ACCESS.ADMIN,
      summary: 'Create an account and its token',
      description:
        'A partner account names its `partnerId`, a provider account its `providerId`. The answer holds the token, shown this once.',
      response: CREATED_ACCOUNT,
      params: CREATE_ACCOUNT_PARAMS,
      async handler(this: CatalogThis, ctx: Context<CreateAccountParams>) {
        const { role, partnerId, providerId } = ctx.params;
        const details: Record<string, string[]> = {};
        if (role === 'partner' && !partnerId) details.partnerId = ['Field is required'];
        if (role === 'provider' && !providerId) details.providerId = ['Field is required'];
        if (role !== 'partner' && partnerId) details.partnerId = ['Field is not accepted'];
        if (role !== 'provider' && providerId) details.providerId = ['Field is not accepted'];
        if (role !== 'provider' && ctx.params.allowAllProviders) details.allowAllProviders = ['Field is not accepted'];
        if (partnerId && (await findPartners(this.db.knex, [partnerId])).length === 0)
          details.partnerId = ['Value is not present in possible options'];
        if (providerId && (await findProviders(this.db.knex, [providerId])).length === 0)
          details.providerId = ['Value is not present in possible options'];
        if (Object.keys(details).length) throw new FieldsValidationError(details);
        const token = newToken();
        const account = await insertAccount(this.db.knex, ctx.params, token);
        return { data: { ...account, token } };
      },
    },

    /** Checks a whole world, then has every owner apply its part. */
    loadWorld: {
      rest: 'POST /admin/world',
      access: ACCESS.ADMIN,
      summary: 'Load a world file',
      description:
        'Checks the whole world first (a 400 names every problem and nothing is loaded), then has each owning service apply its part (docs/world.md). A part no running service loads is a 503 unless `skipUnowned` is set.',
      response: WORLD_LOADED,
      params: {
        world: { type: 'object' },
        // Load what the running services own and leave the rest out (a cluster started with a
        // subset of services on purpose); without it, an unowned part refuses the whole file.
        skipUnowned: { type: 'boolean', default: false },
      },
      async handler(this: CatalogThis, ctx: Context<{ world: World; skipUnowned: boolean }>) {
        // Models may name manufacturers and product types loaded earlier, so the check needs what is stored.
        const models = Array.isArray(ctx.params.world.models) && ctx.params.world.models.length > 0;
        const stored = models ? await this.modelReferenceRecords(true, true) : undefined;
        const errors = validateWorld(ctx.params.world, stored);
        if (errors.length) {
          // Field names come from the file: `constructor` must be a key like any other.
          const details: Record<string, string[]> = Object.create(null);
          for (const error of errors) (details[error.field || 'world'] ??= []).push(error.message);
          throw new FieldsValidationError(details);
        }
        const owners = this.worldOwners();
        const unowned = worldKeysPresent(ctx.params.world).filter((key) => !owners.includes(WORLD_PART_OWNERS[key]));
        if (unowned.length && !ctx.params.skipUnowned) {
          throw new ServiceMissingError(`No running service loads ${unowned.join(', ')}; nothing was loaded`, {
            keys: unowned,
          });
        }
        // What can clash only with what an owner stores (models, subscriptions) is asked of each
        // owner that can tell, before any part is written.
        const references = stored ? referencesAfterLoad(ctx.params.world, stored) : undefined;
        for (const owner of this.worldOwners('checkWorld'))
          await ctx.call(`${owner}.checkWorld`, { world: ctx.params.world, references });
        for (const owner of owners) await ctx.call(`${owner}.applyWorld`, { world: ctx.params.world });
        await ctx.broadcast('world.changed', { owners });
        const data: Record<string, unknown> = { result: true, appliedBy: owners };
        if (unowned.length) data.skipped = unowned;
        return { data };
      },
    },

    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: CatalogThis, ctx: Context<{ world: World }>) {
        try {
          await inTransaction(this.db.knex, async (trx) => {
            await applyDirectory(trx, ctx.params.world);
            await applyReference(trx, ctx.params.world);
            await applyStatusRules(trx, ctx.params.world);
          });
        } catch (err) {
          // The one uniqueness the whole-file check cannot see: a token of an account stored apart from the file.
          if ((err as { constraint?: string }).constraint === ACCOUNT_TOKEN_UNIQUE)
            throw new FieldsValidationError({ accounts: [TOKEN_TAKEN] });
          throw err;
        }
        return true;
      },
    },

    /**
     * Internal, for the model registry: manufacturers and product types by id, name or alias, a
     * whole request's worth in one call. Answers each list in the order asked, null where unknown.
     */
    modelReferences: {
      visibility: 'public',
      cache: { keys: ['manufacturers', 'productTypes'] },
      params: {
        manufacturers: { type: 'array', items: { type: 'multi', rules: ['number', 'string'] }, default: [] },
        productTypes: { type: 'array', items: { type: 'multi', rules: ['number', 'string'] }, default: [] },
      },
      async handler(
        this: CatalogThis,
        ctx: Context<{ manufacturers: Array<number | string>; productTypes: Array<number | string> }>,
      ) {
        const { manufacturers, productTypes } = await this.modelReferenceRecords(
          ctx.params.manufacturers.length > 0,
          ctx.params.productTypes.length > 0,
        );
        return {
          manufacturers: ctx.params.manufacturers.map((key) => {
            const record = findNamed(manufacturers, key);
            return record && manufacturerOut(record);
          }),
          productTypes: ctx.params.productTypes.map((key) => {
            const record = findNamed(productTypes, key);
            return record && productTypeOut(record);
          }),
        };
      },
    },

    /** Whether any world was ever loaded; embedded mode loads the demo world when not. */
    hasWorld: {
      visibility: 'public',
      async handler(this: CatalogThis) {
        const row = await this.db.knex('catalog.partners').first('id');
        return Boolean(row);
      },
    },
  },

  events: {
    // Every instance reads the reference data and the directory again after a load anywhere in the cluster.
    'world.changed'(this: CatalogThis) {
      this.referenceData.forget();
      this.directoryData.forget();
    },
  },

  methods: {
    reference(this: CatalogThis): Promise<Reference> {
      return this.referenceData.get();
    },

    directory(this: CatalogThis): Promise<Directory> {
      return this.directoryData.get();
    },

    /** The manufacturers and product types tables, each read only when asked for (models' references). */
    async modelReferenceRecords(this: CatalogThis, withManufacturers: boolean, withProductTypes: boolean) {
      const read = async (table: string, wanted: boolean): Promise<NamedRecord[]> => {
        if (!wanted) return [];
        const rows = await this.db.knex(table).select('id', 'name', 'aliases', 'properties', 'external_data');
        return rows.map((row) => ({
          id: row.id,
          name: row.name,
          aliases: row.aliases,
          properties: row.properties,
          externalData: row.external_data ?? null,
        }));
      };
      return {
        manufacturers: await read('catalog.manufacturers', withManufacturers),
        productTypes: await read('catalog.product_types', withProductTypes),
      };
    },

    /** Every service in the cluster that loads part of a world, in a stable order. */
    worldOwners(this: CatalogThis, method = 'applyWorld'): string[] {
      const actions = this.broker.registry.getActionList({ onlyAvailable: true, skipInternal: true }) as Array<{
        name: string;
      }>;
      const owners = actions
        .filter((entry) => entry.name.endsWith(`.${method}`))
        .map((entry) => entry.name.slice(0, -`.${method}`.length));
      const rank = (name: string) => (WORLD_ORDER.includes(name) ? WORLD_ORDER.indexOf(name) : WORLD_ORDER.length);
      return [...new Set(owners)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    },
  },

  // A booking or an uncached lookup would otherwise read the reference tables and the
  // directory each time, though only a world load changes them.
  created(this: CatalogThis) {
    this.referenceData = new PerWorld(() => loadReference(this.db.knex));
    this.directoryData = new PerWorld(() => loadDirectory(this.db.knex));
  },
};

export default CatalogService;
