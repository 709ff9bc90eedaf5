/**
 * The life of a case at a simulated provider, as plain data and functions: which step follows
 * which, how long each waits, and the requests each step makes, exactly as a workshop's own
 * integration would send them to the hub's actions.
 *
 * accept -> receive -> diagnose -> propose -> answer (the partner approves or rejects the cost
 * proposal) -> approved: repair -> repaired -> invoice -> ship; rejected: return -> invoice -> ship.
 *
 * A step's requests depend only on the case and the outcome, never on the time, so a step run
 * again after a restart sends the very same requests under the same Idempotency-Keys.
 */
import {
  millisecondsOf,
  SIMULATION_INVOICE_STATUS,
  SIMULATION_STATUS_KEYS,
  type SimulationDelayStep,
} from '@hub/shared';

/** Every step, in the order a case may take them. */
export const STEPS = [
  'accept',
  'receive',
  'diagnose',
  'propose',
  'answer',
  'repair',
  'repaired',
  'return',
  'invoice',
  'ship',
] as const satisfies ReadonlyArray<SimulationDelayStep | 'answer'>;
export type Step = (typeof STEPS)[number];
export type Outcome = 'approved' | 'rejected';

/** What a step after the first waits by default: short enough to try an integration in minutes. */
export const DEFAULT_DELAYS: Record<SimulationDelayStep, string> = {
  accept: '5s',
  receive: '20s',
  diagnose: '20s',
  propose: '20s',
  repair: '20s',
  repaired: '30s',
  return: '20s',
  invoice: '20s',
  ship: '20s',
};

export const FIRST_STEP: Step = 'accept';

/** The step after `step`; null when the life is over. The answer's outcome picks repair or return. */
export function nextStep(step: Step, outcome: Outcome | null): Step | null {
  switch (step) {
    case 'accept':
      return 'receive';
    case 'receive':
      return 'diagnose';
    case 'diagnose':
      return 'propose';
    case 'propose':
      return 'answer';
    case 'answer':
      return outcome === 'approved' ? 'repair' : 'return';
    case 'repair':
      return 'repaired';
    case 'repaired':
    case 'return':
      return 'invoice';
    case 'invoice':
      return 'ship';
    case 'ship':
      return null;
  }
}

/** How long `step` waits after the step before it, in hub time; the partner's answer is looked for at once. */
export function delayOf(step: Step, delays: Partial<Record<SimulationDelayStep, string>>): number {
  if (step === 'answer') return 0;
  return millisecondsOf(delays[step] ?? DEFAULT_DELAYS[step]) ?? 0;
}

/** One call a step makes, as the provider: the action a gateway route reaches, and its params. */
export interface StepRequest {
  action: string;
  params: Record<string, unknown>;
}

export const CURRENCY = 'NOK';
const VAT_RATE = 25;
/** The proposal's lines: what the repair costs. */
const REPAIR_LINES = [
  { line: 1, text: 'Replacement part', type: 'part', priceNet: 990, quantity: 1 },
  { line: 2, text: 'Labour', type: 'work', priceNet: 500, quantity: 1 },
];
export const REPAIR_PRICE = REPAIR_LINES.reduce((sum, line) => sum + line.priceNet * line.quantity, 0);
/** What a return without repair costs: the diagnosis. */
export const DIAGNOSIS_FEE = 390;

/** The externalId of the sandbox's cost proposal and invoice on a case: one each, found again by it. */
export const externalIdOf = (guid: string) => `sandbox-${guid}`;

const status = (guid: string, key: string): StepRequest => ({ action: 'booking.addStatus', params: { guid, key } });
const message = (guid: string, type: string, content: string): StepRequest => ({
  action: 'messaging.create',
  params: { guid, type, content },
});

function invoice(guid: string, outcome: Outcome): StepRequest {
  const name = outcome === 'approved' ? 'Repair' : 'Diagnosis';
  const priceExclVat = outcome === 'approved' ? REPAIR_PRICE : DIAGNOSIS_FEE;
  const vatAmount = (priceExclVat * VAT_RATE) / 100;
  return {
    action: 'invoicing.save',
    params: {
      items: [
        {
          guid,
          externalId: externalIdOf(guid),
          type: 'invoice',
          priceNet: priceExclVat,
          currency: CURRENCY,
          status: SIMULATION_INVOICE_STATUS,
          isSent: true,
          details: [
            {
              name,
              count: 1,
              vatRate: VAT_RATE,
              vatAmount,
              priceExclVat,
              priceInclVat: priceExclVat + vatAmount,
              totalAmountExclVat: priceExclVat,
              totalAmountInclVat: priceExclVat + vatAmount,
            },
          ],
        },
      ],
    },
  };
}

/** The requests of a step, in order; `answer` makes none (it reads, see `outcomeOf`). */
export function requestsOf(step: Step, guid: string, outcome: Outcome | null): StepRequest[] {
  switch (step) {
    case 'accept':
      return [{ action: 'booking.accept', params: { guid } }];
    case 'receive':
      return [
        status(guid, SIMULATION_STATUS_KEYS.receive),
        message(guid, 'serviceComment', 'The product has arrived at the workshop.'),
      ];
    case 'diagnose':
      return [status(guid, SIMULATION_STATUS_KEYS.diagnose)];
    case 'propose':
      return [
        {
          action: 'cost-proposals.save',
          params: {
            items: [
              {
                guid,
                externalId: [externalIdOf(guid)],
                name: 'Repair',
                priceNet: REPAIR_PRICE,
                currency: CURRENCY,
                details: REPAIR_LINES,
              },
            ],
          },
        },
        status(guid, SIMULATION_STATUS_KEYS.propose),
        message(
          guid,
          'costProposal',
          `The repair costs ${REPAIR_PRICE} ${CURRENCY} before VAT. Please approve or reject the cost proposal.`,
        ),
      ];
    case 'answer':
      return [];
    case 'repair':
      return [status(guid, SIMULATION_STATUS_KEYS.repair)];
    case 'repaired':
      return [
        status(guid, SIMULATION_STATUS_KEYS.repaired),
        message(guid, 'serviceComment', 'The repair is done and the product has passed its test.'),
      ];
    case 'return':
      return [
        status(guid, SIMULATION_STATUS_KEYS.return),
        message(
          guid,
          'costProposalRejectRur',
          `The cost proposal was rejected: the product goes back unrepaired, and the diagnosis costs ${DIAGNOSIS_FEE} ${CURRENCY} before VAT.`,
        ),
      ];
    case 'invoice':
      return [invoice(guid, outcome ?? 'rejected')];
    case 'ship':
      return [status(guid, SIMULATION_STATUS_KEYS.ship), message(guid, 'shipment', 'The product is on its way back.')];
  }
}

/** The request that reads the case's cost proposals, for the partner's answer. */
export const readProposals = (guid: string): StepRequest => ({ action: 'cost-proposals.list', params: { guid } });

/**
 * The partner's answer to the sandbox's proposal on the case, among the case's proposals: null
 * while it has none. A proposal the partner deleted is taken as rejected: there is no agreed cost.
 */
export function outcomeOf(
  proposals: Array<{ externalId: unknown; reaction: string | null }>,
  guid: string,
): Outcome | null {
  const ours = proposals.find(
    (proposal) => Array.isArray(proposal.externalId) && proposal.externalId.includes(externalIdOf(guid)),
  );
  if (!ours) return 'rejected';
  if (ours.reaction === 'approved' || ours.reaction === 'rejected') return ours.reaction;
  return null;
}
