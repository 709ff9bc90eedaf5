/**
 * routing: owns the competences (which provider department serves which partner's cases) and
 * chooses the one that gets a case. It also tells the catalog what a partner can still book
 * for a set of parameters, which is what the lookups answer.
 */
import path from 'node:path';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  callerOf,
  CannotProcessCaseError,
  DbMixin,
  type DbService,
  FIELD_MESSAGES,
  FieldsValidationError,
  inTransaction,
  isServiceRunning,
  NotEnoughDataError,
  type World,
  WorldCacheMixin,
} from '@hub/shared';
import { choose, type Competence, options, type RouteInput } from './choice';
import { applyCompetences, findCompetences } from './competences';

export interface RoutingParams {
  originatorType?: string;
  bookingType?: string;
  serviceType?: number;
  manufacturer?: string;
  productType?: string;
  clientPostalCode?: string;
  serviceLocation?: number;
  model?: string;
}
export interface RouteParams extends RoutingParams {
  partnerId: number;
}
export interface OptionsParams extends Omit<RouteInput, 'modelNames'> {
  partnerId: number;
}

interface NamedOut {
  id: number;
  name: string;
}
interface BookingReferenceOut {
  serviceType: NamedOut | null;
  manufacturer: NamedOut | null;
  productType: NamedOut | null;
  serviceLocation: NamedOut | null;
}
interface ResolvedModel {
  id: number;
  name: string;
  manufacturerId: number | null;
  productTypeId: number | null;
}
interface PartyOut {
  id: number;
  name: string;
  contactData: unknown;
}

const originatorType = { type: 'enum', values: ['private', 'helpdesk'], optional: true };
const bookingType = { type: 'enum', values: ['companyToPrivate', 'privateToPrivate'], optional: true };
const id = { type: 'number', integer: true, positive: true, optional: true };
// An id or a name; numbers from internal callers become text and are read back as ids.
const idOrName = { type: 'string', min: 1, max: 255, convert: true, optional: true };
const postalCode = { type: 'string', trim: true, min: 3, max: 10, optional: true };

const routingParams = {
  originatorType,
  bookingType,
  serviceType: id,
  manufacturer: idOrName,
  productType: idOrName,
  clientPostalCode: postalCode,
  serviceLocation: id,
  model: { type: 'string', min: 1, max: 255, optional: true },
};

type RoutingThis = Service & DbService;

const RoutingService: ServiceSchema<ServiceSettingSchema, RoutingThis> = {
  name: 'routing',
  mixins: [DbMixin('routing', path.join(__dirname, 'migrations')), WorldCacheMixin],
  settings: { rest: '' },

  actions: {
    find: {
      rest: 'GET /v3/routing',
      access: ACCESS.PARTNER,
      params: routingParams,
      handler(this: RoutingThis, ctx: Context<RoutingParams>) {
        return ctx.call('routing.route', { ...ctx.params, partnerId: callerOf(ctx).partnerId });
      },
    },

    /** Internal: the routing decision for a partner's case parameters (booking calls it). */
    route: {
      visibility: 'public',
      params: { partnerId: 'number|integer|positive', ...routingParams },
      async handler(this: RoutingThis, ctx: Context<RouteParams>) {
        const { partnerId, model, ...given } = ctx.params;
        const reference = await ctx.call<BookingReferenceOut, object>('catalog.bookingReference', {
          serviceType: given.serviceType,
          manufacturer: given.manufacturer,
          productType: given.productType,
          serviceLocation: given.serviceLocation,
        });
        const details: Record<string, string[]> = {};
        for (const field of ['serviceType', 'manufacturer', 'productType', 'serviceLocation'] as const) {
          if (given[field] !== undefined && reference[field] === null) details[field] = [FIELD_MESSAGES.notAnOption];
        }
        if (Object.keys(details).length) throw new FieldsValidationError(details);

        const input: RouteInput = {
          originatorType: given.originatorType,
          bookingType: given.bookingType,
          serviceType: reference.serviceType?.id,
          manufacturer: reference.manufacturer?.id,
          productType: reference.productType?.id,
          clientPostalCode: given.clientPostalCode,
          serviceLocation: reference.serviceLocation?.id,
        };
        if (model !== undefined) {
          input.modelNames = [model];
          // A registered model also says its manufacturer and product type when the case did not.
          if (isServiceRunning(this.broker, 'models')) {
            const found = await ctx.call<ResolvedModel | null, { name: string }>('models.resolveName', { name: model });
            if (found) {
              input.modelNames.push(found.name);
              input.manufacturer ??= found.manufacturerId ?? undefined;
              input.productType ??= found.productTypeId ?? undefined;
            }
          }
        }

        const competences = await ctx.call<Competence[], { partnerId: number }>('routing.competencesOf', { partnerId });
        const choice = choose(competences, input);
        if (choice.kind === 'none') throw new CannotProcessCaseError();
        if (choice.kind === 'notEnoughData') throw new NotEnoughDataError(choice.paramsNeeded);
        const chosen = choice.competence;

        const [parties, shippingMethods] = await Promise.all([
          ctx.call<{ partners: PartyOut[]; providers: PartyOut[] }, object>('catalog.parties', { partnerIds: [partnerId], providerIds: [chosen.providerId] }),
          ctx.call<unknown[], object>('catalog.shippingMethodsById', { ids: chosen.shippingMethods }),
        ]);
        const [partner] = parties.partners;
        const [provider] = parties.providers;
        return {
          servicePartner: { id: partnerId, name: partner?.name ?? null },
          servicePartnerCompetence: { overrideCode: null, ...(chosen.partnerCompetence ?? { id: chosen.id }) },
          serviceProvider: { id: chosen.providerId, name: provider?.name ?? null, contactData: provider?.contactData ?? null },
          serviceProviderCompetence: {
            sesam: chosen.sesam,
            persDep: chosen.persDep,
            departmentId: chosen.departmentId,
            primarySesam: chosen.primary,
            id: chosen.id,
            overrideCode: chosen.overrideCode,
          },
          shippingMethods,
        };
      },
    },

    /** Internal: what the partner's competences still allow in each list (null: any value). */
    options: {
      visibility: 'public',
      cache: { keys: ['partnerId', 'originatorType', 'bookingType', 'serviceType', 'manufacturer', 'productType', 'clientPostalCode', 'serviceLocation'] },
      params: {
        partnerId: 'number|integer|positive',
        originatorType,
        bookingType,
        serviceType: id,
        manufacturer: id,
        productType: id,
        clientPostalCode: postalCode,
        serviceLocation: id,
      },
      async handler(this: RoutingThis, ctx: Context<OptionsParams>) {
        const { partnerId, ...input } = ctx.params;
        const competences = await ctx.call<Competence[], { partnerId: number }>('routing.competencesOf', { partnerId });
        return options(competences, input);
      },
    },

    /** Internal: a partner's competences, cached so a decision reads no table. */
    competencesOf: {
      visibility: 'public',
      cache: { keys: ['partnerId'] },
      params: { partnerId: 'number|integer|positive' },
      handler(this: RoutingThis, ctx: Context<{ partnerId: number }>) {
        return findCompetences(this.db.knex, ctx.params.partnerId);
      },
    },

    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: RoutingThis, ctx: Context<{ world: World }>) {
        await inTransaction(this.db.knex, (trx) => applyCompetences(trx, ctx.params.world));
        return true;
      },
    },
  },
};

export default RoutingService;
