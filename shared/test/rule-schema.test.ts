import FastestValidator from 'fastest-validator';
import { ruleToSchema } from '../src/rule-schema';

describe('ruleToSchema', () => {
  it("names a record's keys and an email's length", () => {
    expect(
      ruleToSchema({ type: 'record', key: { type: 'string', min: 1, max: 8 }, value: { type: 'boolean' } }),
    ).toEqual({
      type: 'object',
      additionalProperties: { type: 'boolean' },
      propertyNames: { type: 'string', minLength: 1, maxLength: 8, not: { const: '__proto__' } },
    });
    expect(ruleToSchema({ type: 'email', max: 255 })).toEqual({ type: 'string', format: 'email', maxLength: 255 });
  });

  it('adds what a custom check says under jsonSchema, and the validator ignores that key', () => {
    const box = {
      type: 'object',
      props: { volume: { type: 'number', optional: true }, width: { type: 'number', optional: true } },
      custom: (value: Record<string, unknown>, errors: Array<Record<string, unknown>>) => {
        if (value.volume === undefined && value.width === undefined) errors.push({ type: 'required' });
        return value;
      },
      jsonSchema: { anyOf: [{ required: ['volume'] }, { required: ['width'] }] },
      nullable: true,
    };
    expect(ruleToSchema(box)).toEqual({
      type: ['object', 'null'],
      properties: { volume: { type: 'number' }, width: { type: 'number' } },
      anyOf: [{ required: ['volume'] }, { required: ['width'] }],
    });
    const check = new FastestValidator({ useNewCustomCheckerFunction: true }).compile({ box });
    expect(check({ box: { width: 2 } })).toBe(true);
    expect(check({ box: {} })).not.toBe(true);
  });
});
