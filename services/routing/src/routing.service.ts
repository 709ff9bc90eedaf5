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
  OlderPathsMixin,
  type ParamsOf,
  type World,
  PerWorldByKey,
  WorldCacheMixin,
  RetentionMixin,
  CHOICE_RULES,
  optionalRule,
} from '@hub/shared';
import { type Choice, choose, type Competence, narrowBooking, type Offered, options, type RouteInput } from './choice';
import { applyCompetences, findCompetences } from './competences.store';
import { ROUTING_ANSWER, ROUTING_ANSWER_V2 } from './responses';

export type RoutingParams = ParamsOf<typeof ROUTING_PARAMS>;
export type RouteParams = ParamsOf<typeof ROUTE_PARAMS>;
export type OptionsParams = ParamsOf<typeof OPTIONS_PARAMS>;
export type DecideParams = ParamsOf<typeof DECIDE_PARAMS>;
/** A routing choice as data (not thrown), so the caller can put its own checks' errors first. */
export type Decision =
  | { kind: 'chosen'; providerId: number; serviceProviderCompetence: ProviderCompetenceOut }
  | Exclude<Choice, { kind: 'chosen' }>;
export interface DecideAnswer {
  offered: Offered;
  decision: Decision | null;
}
type ProviderCompetenceOut = ReturnType<typeof providerCompetenceOut>;

/** The chosen competence as a case records it (the Routing answer's serviceProviderCompetence). */
function providerCompetenceOut(chosen: Competence) {
  return {
    sesam: chosen.sesam,
    persDep: chosen.persDep,
    departmentId: chosen.departmentId,
    primarySesam: chosen.primary,
    id: chosen.id,
    overrideCode: chosen.overrideCode,
  };
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
  tagIds?: number[] | null;
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

const ROUTING_PARAMS = {
  originatorType: optionalRule(CHOICE_RULES.originatorType),
  bookingType: optionalRule(CHOICE_RULES.bookingType),
  serviceType: optionalRule(CHOICE_RULES.id),
  manufacturer: optionalRule(CHOICE_RULES.idOrName),
  productType: optionalRule(CHOICE_RULES.idOrName),
  clientPostalCode: optionalRule(CHOICE_RULES.postalCode),
  serviceLocation: optionalRule(CHOICE_RULES.id),
  model: optionalRule(CHOICE_RULES.model),
  // What the answer's shippingMethods are for: the shipment's direction and the case's tags.
  actionType: CHOICE_RULES.actionType,
  tags: CHOICE_RULES.tags,
} as const;
const ROUTE_PARAMS = { partnerId: 'number|integer|positive', ...ROUTING_PARAMS } as const;
/** A case's choice as ids, after the catalog resolved its names. */
const OPTIONS_PARAMS = {
  partnerId: 'number|integer|positive',
  originatorType: ROUTING_PARAMS.originatorType,
  bookingType: ROUTING_PARAMS.bookingType,
  serviceType: optionalRule(CHOICE_RULES.id),
  manufacturer: optionalRule(CHOICE_RULES.id),
  productType: optionalRule(CHOICE_RULES.id),
  clientPostalCode: ROUTING_PARAMS.clientPostalCode,
  serviceLocation: optionalRule(CHOICE_RULES.id),
  // Only the competences of this provider or department count (a shipping-methods lookup for one).
  providerId: optionalRule(CHOICE_RULES.id),
  departmentId: optionalRule(CHOICE_RULES.id),
} as const;
const DECIDE_PARAMS = { ...OPTIONS_PARAMS, model: ROUTING_PARAMS.model, route: 'boolean' } as const;

type RoutingThis = Service &
  DbService & {
    /** Each partner's competences, read once per world: a decision reads no table and asks no cache. */
    competences: PerWorldByKey<number, Competence[]>;
    /** The names a case's model is known by: as sent, and its registry name when the registry knows it. */
    modelInput(ctx: Context, model: string, input: RouteInput): Promise<RouteInput>;
  };

const RoutingService: ServiceSchema<ServiceSettingSchema, RoutingThis> = {
  name: 'routing',
  mixins: [
    DbMixin('routing', path.join(__dirname, 'migrations')),
    RetentionMixin('routing'),
    WorldCacheMixin,
    // The documentation shows routing's answer bare (Reference data, the form v3 answers) and
    // wrapped in `data` (Other): the v2 path answers the wrapped one.
    OlderPathsMixin({
      find: { v2: { answer: (found: unknown) => ({ data: found }), response: ROUTING_ANSWER_V2 } },
    }),
  ],
  settings: { rest: '' },
  metadata: {
    description: 'Which provider takes a case with given parameters, with the competences that decide it.',
  },

  actions: {
    find: {
      rest: 'GET /v3/routing',
      access: ACCESS.PARTNER,
      summary: 'The provider that takes a case',
      description:
        "Chooses among the calling partner's competences for the case parameters given, as a booking would. When the parameters cannot decide yet, a 400 `Not enough data` names the ones needed (`paramsNeeded`); when no competence can take the case, a 404 `Can't process this case`. `shippingMethods` are the chosen competence's methods that its provider and department allow, that ship in the direction `actionType` names (`inbound` to the workshop, the default, or `outbound` back from it) and that every tag in `tags` allows (comma-separated ids or names, case-sensitive; an unknown tag is a 400 naming `tags`).",
      response: ROUTING_ANSWER,
      params: ROUTING_PARAMS,
      handler(this: RoutingThis, ctx: Context<RoutingParams>) {
        return ctx.call('routing.route', { ...ctx.params, partnerId: callerOf(ctx).partnerId });
      },
    },

    /** Internal: the routing decision for a partner's case parameters (booking calls it). */
    route: {
      visibility: 'public',
      params: ROUTE_PARAMS,
      async handler(this: RoutingThis, ctx: Context<RouteParams>) {
        const { partnerId, model, actionType, tags, ...given } = ctx.params;
        const reference = await ctx.call<BookingReferenceOut, object>('catalog.bookingReference', {
          serviceType: given.serviceType,
          manufacturer: given.manufacturer,
          productType: given.productType,
          serviceLocation: given.serviceLocation,
          tags,
        });
        const details: Record<string, string[]> = {};
        for (const field of ['serviceType', 'manufacturer', 'productType', 'serviceLocation'] as const) {
          if (given[field] !== undefined && reference[field] === null) details[field] = [FIELD_MESSAGES.notAnOption];
        }
        if (reference.tagIds === null) details.tags = [FIELD_MESSAGES.notAnOption];
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
        const competences = await this.competences.get(partnerId);
        const choice = choose(competences, model === undefined ? input : await this.modelInput(ctx, model, input));
        if (choice.kind === 'none') throw new CannotProcessCaseError();
        if (choice.kind === 'notEnoughData') throw new NotEnoughDataError(choice.paramsNeeded);
        const chosen = choice.competence;

        const [parties, shippingMethods] = await Promise.all([
          ctx.call<{ partners: PartyOut[]; providers: PartyOut[] }, object>('catalog.parties', {
            partnerIds: [partnerId],
            providerIds: [chosen.providerId],
          }),
          ctx.call<unknown[], object>('catalog.shippingMethodsById', {
            ids: chosen.shippingMethods,
            actionType,
            providerId: chosen.providerId,
            departmentId: chosen.departmentId,
            tagIds: reference.tagIds ?? [],
          }),
        ]);
        const [partner] = parties.partners;
        const [provider] = parties.providers;
        return {
          servicePartner: { id: partnerId, name: partner?.name ?? null },
          servicePartnerCompetence: { overrideCode: null, ...(chosen.partnerCompetence ?? { id: chosen.id }) },
          serviceProvider: {
            id: chosen.providerId,
            name: provider?.name ?? null,
            contactData: provider?.contactData ?? null,
          },
          serviceProviderCompetence: providerCompetenceOut(chosen),
          shippingMethods,
        };
      },
    },

    /**
     * Internal: a booking's whole check against the partner's competences in one call: what each
     * step offers (see `narrowBooking`) and, when `route` is set and every step accepted the
     * case's value, the routing choice as data. Values are ids the catalog has resolved.
     */
    decide: {
      visibility: 'public',
      params: DECIDE_PARAMS,
      async handler(this: RoutingThis, ctx: Context<DecideParams>): Promise<DecideAnswer> {
        const { partnerId, model, route, ...input } = ctx.params;
        const competences = await this.competences.get(partnerId);
        const { offered, accepted } = narrowBooking(competences, input);
        if (!route || accepted.serviceLocation === undefined) return { offered, decision: null };
        const choice = choose(
          competences,
          model === undefined ? accepted : await this.modelInput(ctx, model, accepted),
        );
        if (choice.kind !== 'chosen') return { offered, decision: choice };
        const { competence } = choice;
        return {
          offered,
          decision: {
            kind: 'chosen',
            providerId: competence.providerId,
            serviceProviderCompetence: providerCompetenceOut(competence),
          },
        };
      },
    },

    /** Internal: what the partner's competences still allow in each list (null: any value). */
    options: {
      visibility: 'public',
      cache: {
        keys: [
          'partnerId',
          'originatorType',
          'bookingType',
          'serviceType',
          'manufacturer',
          'productType',
          'clientPostalCode',
          'serviceLocation',
          'providerId',
          'departmentId',
        ],
      },
      params: OPTIONS_PARAMS,
      async handler(this: RoutingThis, ctx: Context<OptionsParams>) {
        const { partnerId, ...input } = ctx.params;
        const competences = await this.competences.get(partnerId);
        return options(competences, input);
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

  events: {
    // Every instance reads the competences again after a load anywhere in the cluster.
    'world.changed'(this: RoutingThis) {
      this.competences.forget();
    },
  },

  methods: {
    async modelInput(this: RoutingThis, ctx: Context, model: string, input: RouteInput): Promise<RouteInput> {
      const withModel: RouteInput = { ...input, modelNames: [model] };
      // A registered model also says its manufacturer and product type when the case did not.
      if (!isServiceRunning(this.broker, 'models')) return withModel;
      const found = await ctx.call<ResolvedModel | null, { name: string }>('models.resolveName', { name: model });
      if (!found) return withModel;
      return {
        ...withModel,
        modelNames: [model, found.name],
        manufacturer: withModel.manufacturer ?? found.manufacturerId ?? undefined,
        productType: withModel.productType ?? found.productTypeId ?? undefined,
      };
    },
  },

  created(this: RoutingThis) {
    this.competences = new PerWorldByKey((partnerId) => findCompetences(this.db.knex, partnerId));
  },
};

export default RoutingService;
