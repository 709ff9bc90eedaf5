import {
  delayOf,
  DIAGNOSIS_FEE,
  externalIdOf,
  FIRST_STEP,
  nextStep,
  type Outcome,
  outcomeOf,
  REPAIR_PRICE,
  requestsOf,
  type Step,
} from '../src/life';

const GUID = '3b0c1a4e-5d7f-4f7e-9a51-0c2d6e8f1a23';

/** Every step from the first to the end, for an outcome. */
function lifeOf(outcome: Outcome): Step[] {
  const steps: Step[] = [];
  for (let step: Step | null = FIRST_STEP; step; step = nextStep(step, outcome)) steps.push(step);
  return steps;
}

describe('the life of a simulated case', () => {
  it('repairs what the partner approves and returns what it rejects', () => {
    expect(lifeOf('approved')).toEqual([
      'accept',
      'receive',
      'diagnose',
      'propose',
      'answer',
      'repair',
      'repaired',
      'invoice',
      'ship',
    ]);
    expect(lifeOf('rejected')).toEqual([
      'accept',
      'receive',
      'diagnose',
      'propose',
      'answer',
      'return',
      'invoice',
      'ship',
    ]);
  });

  it('waits for each step as the world says, its default otherwise, and looks for the answer at once', () => {
    expect(delayOf('receive', {})).toBe(20_000);
    expect(delayOf('receive', { receive: '2h' })).toBe(7_200_000);
    expect(delayOf('accept', { accept: '0' })).toBe(0);
    expect(delayOf('answer', { receive: '2h' })).toBe(0);
  });

  it('sends the same requests each time a step is taken: nothing in them depends on the time', () => {
    for (const outcome of ['approved', 'rejected'] as const) {
      for (const step of lifeOf(outcome))
        expect(requestsOf(step, GUID, outcome)).toEqual(requestsOf(step, GUID, outcome));
    }
  });

  it('proposes the repair and invoices the repair or the diagnosis by the answer', () => {
    const [proposal] = requestsOf('propose', GUID, null);
    expect(proposal).toMatchObject({
      action: 'cost-proposals.save',
      params: { items: [{ guid: GUID, externalId: [externalIdOf(GUID)], priceNet: REPAIR_PRICE }] },
    });
    const invoiced = (outcome: Outcome) =>
      (requestsOf('invoice', GUID, outcome)[0].params.items as Array<{ priceNet: number }>)[0].priceNet;
    expect(invoiced('approved')).toBe(REPAIR_PRICE);
    expect(invoiced('rejected')).toBe(DIAGNOSIS_FEE);
  });

  it("reads the partner's answer from its own proposal on the case", () => {
    const ours = { externalId: [externalIdOf(GUID)], reaction: null as string | null };
    const other = { externalId: ['WO-1'], reaction: 'approved' };
    expect(outcomeOf([other, ours], GUID)).toBeNull();
    expect(outcomeOf([other, { ...ours, reaction: 'approved' }], GUID)).toBe('approved');
    expect(outcomeOf([{ ...ours, reaction: 'rejected' }], GUID)).toBe('rejected');
    // A proposal the partner deleted agrees no cost.
    expect(outcomeOf([other], GUID)).toBe('rejected');
  });
});
