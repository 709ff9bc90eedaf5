/** The hub's defaults as the broker's validator applies them to an action's params. */
import { detailsFromValidator, HubValidator } from '../src';

type Check = (params: Record<string, unknown>) => true | unknown[];

const compile = (schema: Record<string, unknown>) => new HubValidator().compile(schema) as unknown as Check;

describe('HubValidator: records', () => {
  const lowerCaseOnly = (key: unknown, errors: Array<Record<string, unknown>>) => {
    if (typeof key === 'string' && key !== key.toLowerCase()) errors.push({ type: 'stringPattern', actual: key });
    return key;
  };
  const check = compile({
    flags: { type: 'record', key: { type: 'string', max: 16 }, value: { type: 'boolean' } },
    labels: { type: 'record', optional: true, key: { type: 'string', custom: lowerCaseOnly }, value: 'string' },
  });

  it('refuses a key named __proto__ on the record, where it would otherwise vanish', () => {
    const params = JSON.parse('{"flags": {"__proto__": true, "on": false}}');
    expect(detailsFromValidator(check(params))).toEqual({ flags: ['Key __proto__ is not accepted'] });
    const kept = JSON.parse('{"flags": {"constructor": true, "on": false}}');
    expect(check(kept)).toBe(true);
    expect(kept.flags).toEqual({ constructor: true, on: false });
  });

  it("keeps a key rule's own check beside it", () => {
    expect(detailsFromValidator(check({ flags: {}, labels: { Loud: 'x' } }))).toEqual({ labels: ['Wrong format'] });
    const both = JSON.parse('{"flags": {}, "labels": {"__proto__": "x", "Loud": "y", "calm": "z"}}');
    expect(detailsFromValidator(check(both))).toEqual({ labels: ['Key __proto__ is not accepted', 'Wrong format'] });
  });
});
