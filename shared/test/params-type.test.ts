/**
 * ParamsOf: checked by the compiler (`npm run lint` type-checks this file), and each schema is
 * also run through the validator so the type and what validation lets through cannot part ways.
 */
import Validator from 'fastest-validator';
import type { ParamsOf } from '../src/params-type';

/** Compiles only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Same<A, B>) => proof;

const FEEDBACK = {
  id: 'number|integer|positive',
  name: 'string|min:1|max:255',
  reaction: { type: 'enum', values: ['approved', 'rejected'] },
  comment: { type: 'string', max: 2000, optional: true, nullable: true },
  notify: 'boolean|optional',
  tags: { type: 'array', items: 'string', default: [] },
  filters: { type: 'object', optional: true, props: { from: 'date', limit: { type: 'number', default: 10 } } },
  guid: [{ type: 'uuid' }, { type: 'number' }],
  $$strict: 'remove',
} as const;

type Feedback = ParamsOf<typeof FEEDBACK>;

describe('ParamsOf', () => {
  it('types each kind of rule as the validator accepts it', () => {
    same<
      Feedback,
      {
        id: number;
        name: string;
        reaction: 'approved' | 'rejected';
        comment?: string | null;
        notify?: boolean;
        tags: string[];
        filters?: { from: Date; limit: number };
        guid: string | number;
      }
    >(true);
    // A key the schema does not name is no param: the compiler refuses it.
    // @ts-expect-error `other` is not in the schema
    const wrong: Feedback = { id: 1, name: 'a', reaction: 'approved', tags: [], guid: 1, other: 1 };
    expect(wrong).toBeDefined();
  });

  it('matches what validation lets through: optional keys may be missing, defaults are filled', () => {
    const check = new Validator().compile({ ...FEEDBACK });
    const params: Record<string, unknown> = { id: 1, name: 'a', reaction: 'approved', guid: 2 };
    expect(check(params)).toBe(true);
    const typed = params as Feedback;
    expect(typed.tags).toEqual([]);
    expect(typed.comment).toBeUndefined();
    expect(check({ ...params, reaction: 'maybe' })).not.toBe(true);
    expect(check({ ...params, comment: null })).toBe(true);
  });
});
