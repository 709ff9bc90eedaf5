/**
 * A simulated provider (`providers[].simulated` in the world file, docs/world.md): the sandbox
 * service works every case routed to it through a repair's life on its own, as that provider,
 * so a partner can try a whole integration without a workshop. What the world check and the
 * sandbox must agree on lives here: the steps whose delay a world may set, and the status keys
 * and invoice status the life posts, which the provider's entry must therefore list.
 */

/** The steps of the life a world may give a delay, each counted from the end of the step before. */
export const SIMULATION_DELAY_STEPS = [
  'accept',
  'receive',
  'diagnose',
  'propose',
  'repair',
  'repaired',
  'return',
  'invoice',
  'ship',
] as const;
export type SimulationDelayStep = (typeof SIMULATION_DELAY_STEPS)[number];

/** The status key each step posts; booking takes only keys of the provider's own list. */
export const SIMULATION_STATUS_KEYS = {
  receive: 'received',
  diagnose: 'diagnosing',
  propose: 'awaiting_approval',
  repair: 'in_repair',
  repaired: 'repaired',
  return: 'not_repaired',
  ship: 'shipped',
} as const satisfies Partial<Record<SimulationDelayStep, string>>;

/** The status of the invoices the life saves: one whose 'Send to client' tells the partner. */
export const SIMULATION_INVOICE_STATUS = 'sent';

/** The longest delay a step may have: beyond it a case would outlive any test of an integration. */
export const SIMULATION_LONGEST_DELAY_MS = 30 * 86_400_000;

export interface WorldSimulation {
  /** The provider account the sandbox acts as: what it writes is that account's, as if it sent it. */
  accountId: number;
  /** Durations (`0`, `500ms`, `30s`, `5m`, `2h`, `1d`) per step; a step left out takes its default. */
  delays?: Partial<Record<SimulationDelayStep, string>>;
}
