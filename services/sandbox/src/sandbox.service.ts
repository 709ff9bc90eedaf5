/**
 * sandbox: works the cases of the world's simulated providers (docs/world.md), so a partner can
 * try a whole integration without a workshop: every case routed to such a provider is accepted,
 * gets its statuses, a cost proposal that waits for the partner's answer, then the repair or the
 * return, an invoice and messages, on the provider's schedule.
 *
 * It acts as the provider's account through the very actions a provider's requests reach
 * (`booking.unexported`, `booking.accept`, `booking.addStatus`, `cost-proposals.save`,
 * `messaging.create`, `invoicing.save`), so every rule, history entry, outbox event and webhook
 * is the real one. Each simulation's next step is stored (simulations.store.ts), each request of
 * a step carries an Idempotency-Key of its own, and a step is recorded only once: a restart goes
 * on where it stopped, without losing or repeating a step.
 */
import path from 'node:path';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  type Caller,
  clockOf,
  configOf,
  DbMixin,
  type DbService,
  NotFoundError,
  type ParamsOf,
  PerWorld,
  inTransaction,
  RetentionMixin,
  visibleCase,
  type World,
} from '@hub/shared';
import { delayOf, FIRST_STEP, nextStep, outcomeOf, readProposals, requestsOf, type StepRequest } from './life';
import { ONE_SIMULATION } from './responses';
import {
  applySimulatedProviders,
  claimDueSimulations,
  findSimulation,
  loadSimulatedProviders,
  postponeStep,
  recordStep,
  type SimulatedProvider,
  type SimulationRow,
  startSimulations,
  stopSimulation,
} from './simulations.store';

export const SANDBOX_SETTINGS = {
  /**
   * How long an instance owns the simulations it claimed: what a killed instance's cases wait
   * before another takes them up. A step slower than that taken twice at once still writes once:
   * its requests share their Idempotency-Keys, and only one records the step.
   */
  leaseMs: 30_000,
  /** Simulations claimed at once. */
  batchSize: 20,
  /** New cases read per page of the provider's intake. */
  intakePageSize: 100,
  /** Longest wait before a step that failed for a passing reason is tried again. */
  maxBackoffMs: 300_000,
};

const SIMULATION_PARAMS = { guid: 'uuid' } as const;

/** A case just booked is not taken up until the next poll: the answer says so, not only "not simulated". */
const SIMULATION_NOT_FOUND =
  'The case is not at a simulated provider, or the sandbox has not taken it up yet (it looks for new cases every SANDBOX_POLL_INTERVAL)';
type SimulationParams = ParamsOf<typeof SIMULATION_PARAMS>;

interface TurnState {
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  /** Whether the last turn failed, so an outage is logged once, not once per turn. */
  failing: boolean;
}

type SandboxThis = Service &
  DbService & {
    simulatedProviders: PerWorld<Map<number, SimulatedProvider>>;
    turn: TurnState;
    simulate(): void;
    takeTurn(): Promise<void>;
    takeNewCases(provider: SimulatedProvider): Promise<void>;
    takeStep(simulation: SimulationRow, provider: SimulatedProvider): Promise<void>;
    callAs(provider: SimulatedProvider, request: StepRequest, idempotencyKey?: string): Promise<unknown>;
  };

/** An error that says the step may succeed later (a service away, a timeout), not that the hub refused it. */
function isPassing(err: unknown): boolean {
  const { retryable, code } = err as { retryable?: boolean; code?: unknown };
  return retryable === true || !(typeof code === 'number' && code >= 400 && code < 500);
}

function simulationOut(row: SimulationRow) {
  return {
    guid: row.case_guid,
    providerId: row.provider_id,
    state: row.state,
    step: row.step,
    outcome: row.outcome,
    dueAt: row.state === 'running' ? row.due_at.toISOString() : null,
    stoppedReason: row.stopped_reason,
    startedAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const SandboxService: ServiceSchema<ServiceSettingSchema, SandboxThis> = {
  name: 'sandbox',
  // Its storage is reported like every service's; a simulation is kept as long as its case.
  mixins: [DbMixin('sandbox', path.join(__dirname, 'migrations')), RetentionMixin('sandbox')],
  settings: { rest: '' },
  metadata: {
    description: "Simulated providers: the life of each case routed to one, as that provider's own requests.",
  },

  actions: {
    simulation: {
      rest: 'GET /v3/sandbox/simulation',
      access: ACCESS.PARTNER_PROVIDER,
      summary: "Where a simulated provider's case is in its life",
      description:
        'For a case routed to a simulated provider: the step it takes next and when, the answer to its cost proposal, ' +
        'or why it stopped. A case of another provider is a 404.',
      params: SIMULATION_PARAMS,
      response: ONE_SIMULATION,
      async handler(this: SandboxThis, ctx: Context<SimulationParams>) {
        await visibleCase(ctx, ctx.params.guid);
        const row = await findSimulation(this.db.knex, ctx.params.guid);
        if (!row) throw new NotFoundError(SIMULATION_NOT_FOUND);
        return { data: simulationOut(row) };
      },
    },

    /** The world's simulated providers (`providers[].simulated`). */
    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: SandboxThis, ctx: Context<{ world: World }>) {
        await inTransaction(this.db.knex, (trx) => applySimulatedProviders(trx, ctx.params.world));
        this.simulatedProviders.forget();
        return true;
      },
    },
  },

  events: {
    // Every instance reads the simulated providers again after a load anywhere in the cluster.
    'world.changed'(this: SandboxThis) {
      this.simulatedProviders.forget();
    },
  },

  methods: {
    /** Starts a turn unless one is under way. */
    simulate(this: SandboxThis) {
      const turn = this.turn;
      if (turn.running) return;
      turn.running = this.takeTurn()
        .then(() => {
          if (turn.failing) this.logger.info('The sandbox works its simulated providers again');
          turn.failing = false;
        })
        .catch((err: Error) => {
          if (!turn.failing) this.logger.warn(`A sandbox turn failed (${err.message}); it tries again every turn`);
          turn.failing = true;
        })
        .finally(() => {
          turn.running = undefined;
        });
    },

    /** Takes the simulated providers' new cases, then every step that is due. */
    async takeTurn(this: SandboxThis) {
      // The timer can fire while the service is still opening its database and migrating.
      if (!this.db) return;
      const providers = await this.simulatedProviders.get();
      if (providers.size === 0) return;
      for (const provider of providers.values()) await this.takeNewCases(provider);
      const { knex } = this.db;
      for (;;) {
        const now = new Date();
        const leaseUntil = new Date(now.getTime() + SANDBOX_SETTINGS.leaseMs);
        const due = await claimDueSimulations(knex, [...providers.keys()], now, leaseUntil, SANDBOX_SETTINGS.batchSize);
        for (const simulation of due) await this.takeStep(simulation, providers.get(simulation.provider_id)!);
        if (due.length < SANDBOX_SETTINGS.batchSize) return;
      }
    },

    /** The provider's cases it has not accepted yet, as its own intake lists them, become simulations. */
    async takeNewCases(this: SandboxThis, provider: SimulatedProvider) {
      const firstDue = clockOf(this.broker).storedTimeIn(delayOf(FIRST_STEP, provider.delays));
      let after: string | null = null;
      do {
        const pagination: Record<string, unknown> = { limit: SANDBOX_SETTINGS.intakePageSize };
        if (after) pagination.after = after;
        const page = (await this.callAs(provider, { action: 'booking.unexported', params: { pagination } })) as {
          data: Array<{ guid: string }>;
          pagination: { next: string | null };
        };
        const guids = page.data.map((found) => found.guid);
        await startSimulations(this.db.knex, provider.providerId, guids, FIRST_STEP, firstDue);
        after = page.pagination.next;
      } while (after);
    },

    /**
     * Sends the step's requests, each under its own Idempotency-Key, then records the step; a
     * step taken again after a crash between the two replays the requests' first answers.
     */
    async takeStep(this: SandboxThis, simulation: SimulationRow, provider: SimulatedProvider) {
      const { knex } = this.db;
      const { case_guid: guid, step } = simulation;
      const { sandboxPollIntervalMs } = configOf(this.broker);
      try {
        let outcome = simulation.outcome;
        if (step === 'answer') {
          const proposals = (await this.callAs(provider, readProposals(guid))) as Parameters<typeof outcomeOf>[0];
          outcome = outcomeOf(proposals, guid);
          if (!outcome) {
            await postponeStep(knex, simulation, new Date(Date.now() + sandboxPollIntervalMs), false);
            return;
          }
        } else {
          for (const [index, request] of requestsOf(step, guid, outcome).entries())
            await this.callAs(provider, request, `sandbox:${guid}:${step}:${index + 1}`);
        }
        const next = nextStep(step, outcome);
        const dueAt = next ? clockOf(this.broker).storedTimeIn(delayOf(next, provider.delays)) : new Date();
        await recordStep(knex, simulation, next, outcome, dueAt);
      } catch (err) {
        const message = (err as Error).message;
        if (!isPassing(err)) {
          this.logger.warn(`The simulation of case ${guid} stops at its step '${step}': ${message}`);
          await stopSimulation(knex, simulation, message);
          return;
        }
        const backoff = Math.min(SANDBOX_SETTINGS.maxBackoffMs, sandboxPollIntervalMs * 2 ** simulation.failures);
        if (simulation.failures === 0)
          this.logger.warn(`The step '${step}' of case ${guid} failed (${message}); it is tried again`);
        await postponeStep(knex, simulation, new Date(Date.now() + backoff), true);
      }
    },

    /** Calls an action as the provider's account, as its request through the gateway would. */
    callAs(this: SandboxThis, provider: SimulatedProvider, request: StepRequest, idempotencyKey?: string) {
      const caller: Caller = {
        accountId: provider.accountId,
        role: 'provider',
        name: provider.accountName,
        partnerId: null,
        providerId: provider.providerId,
        canForceProvider: false,
        allowAllProviders: false,
      };
      return this.broker.call(request.action, request.params, { meta: { caller, idempotencyKey } });
    },
  },

  created(this: SandboxThis) {
    this.simulatedProviders = new PerWorld(() => loadSimulatedProviders(this.db.knex));
    this.turn = { failing: false };
  },

  started(this: SandboxThis) {
    this.turn.timer = setInterval(() => this.simulate(), configOf(this.broker).sandboxPollIntervalMs);
    this.turn.timer.unref();
  },

  async stopped(this: SandboxThis) {
    clearInterval(this.turn.timer);
    await this.turn.running;
  },
};

export default SandboxService;
