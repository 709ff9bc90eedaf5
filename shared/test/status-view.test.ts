import {
  caseForPartner,
  hiddenProviderKeys,
  notifiableKeys,
  partnerKeyOf,
  providerKeysOf,
  type StatusRules,
} from '../src';

const rules: StatusRules = {
  mappings: { in_repair: 'repairing', awaiting_parts: 'repairing', done: 'final' },
  blacklist: ['diagnosed', 'final'],
};
const status = (key: string) => ({ key, name: key });

describe('partner status view', () => {
  it('maps keys, hides blacklisted provider or partner keys, and changes nothing without rules', () => {
    expect(partnerKeyOf(rules, 'in_repair')).toBe('repairing');
    expect(partnerKeyOf(rules, 'arrived')).toBe('arrived');
    expect(partnerKeyOf(rules, 'diagnosed')).toBeNull();
    expect(partnerKeyOf(rules, 'done')).toBeNull();
    expect(partnerKeyOf(null, 'diagnosed')).toBe('diagnosed');
  });

  it('names the provider keys hidden from the partner: blacklisted ones and those mapped to a blacklisted key', () => {
    expect(hiddenProviderKeys(rules).sort()).toEqual(['diagnosed', 'done', 'final']);
    expect(hiddenProviderKeys({ mappings: { in_repair: 'repairing' }, blacklist: [] })).toEqual([]);
    expect(hiddenProviderKeys(null)).toEqual([]);
  });

  it('finds the provider keys a partner key stands for', () => {
    expect(providerKeysOf(rules, 'repairing').sort()).toEqual(['awaiting_parts', 'in_repair', 'repairing']);
    expect(providerKeysOf(rules, 'arrived')).toEqual(['arrived']);
    expect(providerKeysOf(rules, 'in_repair')).toEqual([]);
    expect(providerKeysOf(rules, 'diagnosed')).toEqual([]);
    expect(providerKeysOf(null, 'in_repair')).toEqual(['in_repair']);
  });

  it('shows the last visible status as current', () => {
    const found = {
      caseStatuses: [status('registered'), status('in_repair'), status('diagnosed')],
      currentStatus: 'diagnosed',
    };
    const seen = caseForPartner(found, rules);
    expect(seen.caseStatuses.map((entry) => entry.key)).toEqual(['registered', 'repairing']);
    expect(seen.currentStatus).toBe('repairing');
    expect(
      caseForPartner({ caseStatuses: [status('diagnosed')], currentStatus: 'diagnosed' }, rules).currentStatus,
    ).toBeNull();
    expect(caseForPartner(found, null)).toBe(found);
  });

  it('lists each notifiable partner key once, in the provider order', () => {
    expect(
      notifiableKeys(['registered', 'in_repair', 'awaiting_parts', 'diagnosed', 'done'].map(status), rules),
    ).toEqual([status('registered'), { key: 'repairing', name: 'in_repair' }]);
  });

  it("keeps the rest of each key's record, the first one's for a partner key several map to", () => {
    const described = (key: string, smsAvailable: boolean) => ({
      key,
      name: key,
      description: `${key}!`,
      smsAvailable,
    });
    expect(notifiableKeys([described('in_repair', true), described('awaiting_parts', false)], rules)).toEqual([
      { key: 'repairing', name: 'in_repair', description: 'in_repair!', smsAvailable: true },
    ]);
  });
});
