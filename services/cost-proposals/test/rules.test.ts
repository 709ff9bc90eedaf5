/**
 * The cost proposal state rules as plain functions, and the v1 translation.
 */
import fc from 'fast-check';
import {
  approvalsToWithdraw,
  checkProposalFields,
  deactivatedBy,
  decideFeedback,
  externalKeyOf,
  isTimeStamp,
  mayBeApproved,
  numberDetails,
  parseDateTime,
  type ProposalState,
  RULE_MESSAGES,
} from '../src/rules';
import type { ProposalRow } from '../src/proposals.store';
import { columnsOf, fromV1Input, toV1Record } from '../src/records';

const proposal = (overrides: Partial<ProposalState> = {}): ProposalState => ({
  id: 1,
  name: 'Repair',
  isActive: true,
  reaction: null,
  ...overrides,
});

describe('decideFeedback', () => {
  it('records a first approval or rejection', () => {
    expect(decideFeedback(proposal(), 'approved')).toEqual({ kind: 'react' });
    expect(decideFeedback(proposal(), 'rejected')).toEqual({ kind: 'react' });
  });

  it('approves only an active proposal, but lets an inactive one be rejected', () => {
    expect(decideFeedback(proposal({ isActive: false }), 'approved')).toEqual({
      kind: 'conflict',
      message: RULE_MESSAGES.onlyActiveApproved,
    });
    expect(decideFeedback(proposal({ isActive: false }), 'rejected')).toEqual({ kind: 'react' });
  });

  it('treats the same reaction again as a repeat that changes nothing', () => {
    expect(decideFeedback(proposal({ reaction: 'approved' }), 'approved')).toEqual({ kind: 'repeat' });
    expect(decideFeedback(proposal({ reaction: 'rejected' }), 'rejected')).toEqual({ kind: 'repeat' });
  });

  it('refuses a different second reaction', () => {
    expect(decideFeedback(proposal({ reaction: 'approved' }), 'rejected')).toEqual({
      kind: 'conflict',
      message: RULE_MESSAGES.alreadyReacted,
    });
    expect(decideFeedback(proposal({ reaction: 'rejected' }), 'approved')).toEqual({
      kind: 'conflict',
      message: RULE_MESSAGES.alreadyReacted,
    });
  });
});

describe('approvalsToWithdraw', () => {
  it('withdraws the approval of every other proposal, never of the one approved', () => {
    const states = [
      proposal({ id: 1, reaction: 'approved' }),
      proposal({ id: 2 }),
      proposal({ id: 3, reaction: 'rejected' }),
    ];
    expect(approvalsToWithdraw(states, 2)).toEqual([1]);
    expect(approvalsToWithdraw(states, 1)).toEqual([]);
    expect(approvalsToWithdraw(states, null)).toEqual([1]);
  });

  it('leaves at most one approved proposal whatever the order of approvals (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 30 }), (approvals) => {
        let states = [0, 1, 2, 3, 4, 5].map((id) => proposal({ id }));
        for (const id of approvals) {
          const withdrawn = approvalsToWithdraw(states, id);
          states = states.map((s) =>
            s.id === id ? { ...s, reaction: 'approved' } : withdrawn.includes(s.id) ? { ...s, reaction: null } : s,
          );
        }
        const approved = states.filter((s) => s.reaction === 'approved').map((s) => s.id);
        expect(approved).toEqual(approvals.length ? [approvals[approvals.length - 1]] : []);
      }),
    );
  });
});

describe('deactivatedBy', () => {
  it('deactivates older active proposals of the same name only', () => {
    const states = [
      proposal({ id: 1, name: 'Repair' }),
      proposal({ id: 2, name: 'Scrap' }),
      proposal({ id: 3, name: 'Repair', isActive: false }),
      proposal({ id: 4, name: 'Repair' }),
    ];
    expect(deactivatedBy(proposal({ id: 5, name: 'Repair' }), states)).toEqual([1, 4]);
    expect(deactivatedBy(proposal({ id: 5, name: 'RUR' }), states)).toEqual([]);
    expect(deactivatedBy(proposal({ id: 5, name: null }), [proposal({ id: 1, name: null })])).toEqual([]);
  });
});

describe('mayBeApproved', () => {
  it('is active and not rejected', () => {
    expect(mayBeApproved(proposal())).toBe(true);
    expect(mayBeApproved(proposal({ reaction: 'approved' }))).toBe(true);
    expect(mayBeApproved(proposal({ reaction: 'rejected' }))).toBe(false);
    expect(mayBeApproved(proposal({ isActive: false }))).toBe(false);
  });
});

describe('field checks', () => {
  it('accepts the spec timeStamp form only, with a real date and time', () => {
    expect(isTimeStamp('2024-02-29 23:59:59.999')).toBe(true);
    expect(isTimeStamp('2023-02-29 10:00:00.000')).toBe(false);
    expect(isTimeStamp('2024-01-01 24:00:00.000')).toBe(false);
    expect(isTimeStamp('2024-01-01T10:00:00.000')).toBe(false);
    expect(isTimeStamp('2024-01-01 10:00:00')).toBe(false);
  });

  it('parses ISO 8601 date-times and the spec form, rejecting impossible dates', () => {
    expect(parseDateTime('2024-05-01T10:00:00Z')?.toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(parseDateTime('2024-05-01T12:00:00+02:00')?.toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(parseDateTime('2024-05-01 10:00:00.250')?.toISOString()).toBe('2024-05-01T10:00:00.250Z');
    expect(parseDateTime('2024-02-30T10:00:00Z')).toBeNull();
    expect(parseDateTime('yesterday')).toBeNull();
  });

  it('names each bad field and keeps good ones quiet', () => {
    expect(
      checkProposalFields({
        priceNet: 10.25,
        timeStamp: '2024-01-01 10:00:00.000',
        dateValidUntil: '2024-12-31',
        details: [{}, {}],
      }),
    ).toEqual({});
    expect(
      checkProposalFields({
        priceNet: 10.255,
        timeStamp: '2024-01-01',
        reactionDate: 'soon',
        dateValidUntil: '2024-13-01',
        details: [{ line: 2 }, {}],
      }),
    ).toEqual({
      priceNet: ['Wrong format'],
      timeStamp: ['Wrong format'],
      reactionDate: ['Wrong format'],
      dateValidUntil: ['Wrong format'],
      'details[1].line': [RULE_MESSAGES.lineTaken],
    });
  });

  it('numbers detail lines from 1 and keeps lines the provider gives', () => {
    expect(numberDetails([{ text: 'a' }, { line: 7, priceNet: 5, quantity: 2 }])).toEqual([
      { line: 1, text: 'a', type: null, priceNet: null, quantity: null },
      { line: 7, text: null, type: null, priceNet: 5, quantity: 2 },
    ]);
  });

  it('compares externalId as sent, an empty list being none', () => {
    expect(externalKeyOf(['a', 'b'])).toBe('["a","b"]');
    expect(externalKeyOf(['b', 'a'])).not.toBe(externalKeyOf(['a', 'b']));
    expect(externalKeyOf([])).toBeNull();
    expect(externalKeyOf(undefined)).toBeNull();
  });
});

describe('columns of a proposal as sent', () => {
  const guid = '0b6c1f3e-5d4a-4c2b-9a8e-7f6d5c4b3a21';

  it('sets only what was sent and clears what was sent as null', () => {
    expect(columnsOf({ guid, name: 'Repair', priceNet: null })).toEqual({ name: 'Repair', price_net: null });
  });

  it('dates a new reaction now, keeps the date of a repeated one, and clears all on null', () => {
    const before = Date.now();
    const dated = columnsOf({ guid, reaction: 'approved' });
    expect((dated.reaction_date as Date).getTime()).toBeGreaterThanOrEqual(before);
    const stored = { reaction: 'approved', reaction_date: new Date('2024-01-01T00:00:00Z') } as ProposalRow;
    expect(columnsOf({ guid, reaction: 'approved' }, stored).reaction_date).toEqual(new Date('2024-01-01T00:00:00Z'));
    expect(columnsOf({ guid, reaction: null, reactionName: 'x' })).toEqual({
      reaction: null,
      reaction_date: null,
      reaction_name: null,
    });
  });
});

describe('v1', () => {
  const guid = '0b6c1f3e-5d4a-4c2b-9a8e-7f6d5c4b3a21';

  it('turns dateAccepted and approverName into an approval', () => {
    expect(fromV1Input({ guid, name: 'Repair', dateAccepted: '2024-05-01T10:00:00Z', approverName: 'Kari' })).toEqual({
      guid,
      name: 'Repair',
      reaction: 'approved',
      reactionDate: '2024-05-01T10:00:00Z',
      reactionName: 'Kari',
    });
    expect(fromV1Input({ guid, approverName: 'Kari' })).toEqual({
      guid,
      reaction: 'approved',
      reactionDate: null,
      reactionName: 'Kari',
    });
    expect(fromV1Input({ guid, name: 'Repair' })).toEqual({ guid, name: 'Repair' });
  });

  it('shows an approval as dateAccepted and approverName, and a rejection as neither', () => {
    const row = {
      id: 1,
      case_guid: guid,
      service_provider_id: 10,
      external_id: ['x'],
      name: 'Repair',
      price_net: '100.50',
      currency: 'NOK',
      is_active: true,
      reaction: 'approved',
      reaction_date: new Date('2024-05-01T10:00:00Z'),
      reaction_name: 'Kari',
      date_valid_until: null,
      details: null,
      created_at: new Date('2024-04-01T10:00:00Z'),
      updated_at: new Date('2024-05-01T10:00:00Z'),
    } as unknown as ProposalRow;
    expect(toV1Record(row)).toMatchObject({
      priceNet: '100.50',
      dateAccepted: '2024-05-01T10:00:00.000Z',
      approverName: 'Kari',
    });
    expect(toV1Record({ ...row, reaction: 'rejected' })).toMatchObject({ dateAccepted: null, approverName: null });
  });
});
