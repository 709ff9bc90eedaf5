/**
 * The sandbox's own schema: the world's simulated providers, and one simulation per case they
 * work, holding the step it takes next and when. Instances of the sandbox share the work by
 * leasing due simulations (`skip locked`), and a step is recorded only if the simulation is
 * still at it, so a step taken twice (a lease that ran out, a restart) advances it once.
 */
import type { Knex } from 'knex';
import type { SimulationDelayStep, World } from '@hub/shared';
import type { Outcome, Step } from './life';

const PROVIDERS = 'sandbox.simulated_providers';
const SIMULATIONS = 'sandbox.simulations';

export interface SimulatedProvider {
  providerId: number;
  accountId: number;
  accountName: string;
  delays: Partial<Record<SimulationDelayStep, string>>;
}

export type SimulationState = 'running' | 'finished' | 'stopped';

export interface SimulationRow {
  case_guid: string;
  provider_id: number;
  state: SimulationState;
  step: Step;
  outcome: Outcome | null;
  due_at: Date;
  lease_until: Date | null;
  failures: number;
  stopped_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function loadSimulatedProviders(knex: Knex): Promise<Map<number, SimulatedProvider>> {
  const rows = (await knex(PROVIDERS).select('provider_id', 'account_id', 'account_name', 'delays')) as Array<{
    provider_id: number;
    account_id: number;
    account_name: string;
    delays: SimulatedProvider['delays'];
  }>;
  return new Map(
    rows.map((row) => [
      row.provider_id,
      { providerId: row.provider_id, accountId: row.account_id, accountName: row.account_name, delays: row.delays },
    ]),
  );
}

/**
 * The world's `providers[].simulated` entries: an entry replaces the provider's settings, null
 * ends its simulation, a provider without the key keeps what it had. The account's name comes
 * from the same file (the world check requires the account there).
 */
export async function applySimulatedProviders(trx: Knex.Transaction, world: World): Promise<void> {
  for (const provider of world.providers ?? []) {
    const simulated = provider.simulated;
    if (simulated === undefined) continue;
    if (simulated === null) {
      await trx(PROVIDERS).where({ provider_id: provider.id }).delete();
      continue;
    }
    const account = world.accounts?.find((entry) => entry.id === simulated.accountId);
    const columns = {
      account_id: simulated.accountId,
      account_name: account?.name ?? `Account ${simulated.accountId}`,
      delays: JSON.stringify(simulated.delays ?? {}),
      updated_at: trx.fn.now(),
    };
    await trx(PROVIDERS)
      .insert({ provider_id: provider.id, ...columns })
      .onConflict('provider_id')
      .merge(columns);
  }
}

/** Starts simulating the cases named; a case already simulated (or once stopped) is left as it is. */
export async function startSimulations(
  knex: Knex,
  providerId: number,
  guids: string[],
  firstStep: Step,
  dueAt: Date,
): Promise<void> {
  if (guids.length === 0) return;
  await knex(SIMULATIONS)
    .insert(guids.map((guid) => ({ case_guid: guid, provider_id: providerId, step: firstStep, due_at: dueAt })))
    .onConflict('case_guid')
    .ignore();
}

/** Leases up to `limit` running simulations of these providers whose step is due by `now`. */
export async function claimDueSimulations(
  knex: Knex,
  providerIds: number[],
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<SimulationRow[]> {
  const due = knex(SIMULATIONS)
    .select('case_guid')
    .where({ state: 'running' })
    .where('due_at', '<=', now)
    .whereIn('provider_id', providerIds)
    .where((free) => {
      free.whereNull('lease_until').orWhere('lease_until', '<', now);
    })
    .orderBy('due_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const rows = (await knex(SIMULATIONS)
    .whereIn('case_guid', due)
    .update({ lease_until: leaseUntil })
    .returning('*')) as SimulationRow[];
  return rows.sort((a, b) => a.due_at.getTime() - b.due_at.getTime());
}

/**
 * Records that the simulation took `step`: it moves to `next` (finished when there is none),
 * due at `dueAt`. Answers false when it had left that step already, so nothing is recorded twice.
 */
export async function recordStep(
  knex: Knex,
  simulation: Pick<SimulationRow, 'case_guid' | 'step'>,
  next: Step | null,
  outcome: Outcome | null,
  dueAt: Date,
): Promise<boolean> {
  const updated = await knex(SIMULATIONS)
    .where({ case_guid: simulation.case_guid, step: simulation.step, state: 'running' })
    .update({
      ...(next ? { step: next } : { state: 'finished' }),
      outcome,
      due_at: dueAt,
      lease_until: null,
      failures: 0,
      updated_at: knex.fn.now(),
    });
  return updated === 1;
}

/** The step could not be taken for now (a service away): it is tried again at `dueAt`. */
export async function postponeStep(
  knex: Knex,
  simulation: Pick<SimulationRow, 'case_guid' | 'step' | 'failures'>,
  dueAt: Date,
  failed: boolean,
): Promise<void> {
  await knex(SIMULATIONS)
    .where({ case_guid: simulation.case_guid, step: simulation.step, state: 'running' })
    .update({
      due_at: dueAt,
      lease_until: null,
      failures: failed ? simulation.failures + 1 : 0,
      updated_at: knex.fn.now(),
    });
}

/** The hub refused the step (the case was cancelled, for one): the simulation ends there, saying why. */
export async function stopSimulation(
  knex: Knex,
  simulation: Pick<SimulationRow, 'case_guid' | 'step'>,
  reason: string,
): Promise<void> {
  await knex(SIMULATIONS)
    .where({ case_guid: simulation.case_guid, step: simulation.step, state: 'running' })
    .update({ state: 'stopped', stopped_reason: reason, lease_until: null, updated_at: knex.fn.now() });
}

export async function findSimulation(knex: Knex, guid: string): Promise<SimulationRow | undefined> {
  return knex(SIMULATIONS).where({ case_guid: guid }).first();
}
