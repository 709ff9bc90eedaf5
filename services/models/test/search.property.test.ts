/**
 * The model search gives what a plain reference query gives, on random models and random
 * searches. The reference ranks every model in scope by the documented tiers, reading no index in
 * particular (no suffixes, no limits inside). Where at most 75 models hold the query's
 * words, the answers are equal row for row; where more do, tier 2 ranks a capped set of them, so
 * the answer keeps the reference's tiers 0 and 1 and its length, and ranks models that all hold
 * the words by similarity. Some models are renamed, moved to another manufacturer or deleted
 * after they were stored, so the suffixes' triggers are part of what is compared.
 */
import fc from 'fast-check';
import type { Knex } from 'knex';
import { databaseOf } from '@hub/shared';
import { startTestHub, type TestHub } from '../../../test/support/hub';
import { type SearchFilter, searchModels } from '../src/models.store';
import { SIMILAR_CANDIDATES_MAX, searchTerms, searchTextOf } from '../src/rules';

const MODELS = 3000;
// Most names hold "book", and manufacturer 1 has most models: both a word and a word within a
// manufacturer then have more holders than tier 2 ranks.
const SERIES = ['Notebook', 'Book Pro', 'Booker X', 'Padbook', 'iPad', 'ab_c 100%', 'Zeta Phone', 'Smart'];
const ALIASES = ['Book', 'pad-x', 'Zeta', 'NB', 'Bøøk'];
// Tier 2 ranks the models of its first SIMILAR_CANDIDATES_MAX suffix entries, and a model holds a
// word in as many suffixes as the word occurs in its text ("boo" in "booker" and "book"), here
// seldom more than two: with this many holders every one of them is ranked.
const FEW_HOLDERS = SIMILAR_CANDIDATES_MAX / 4;

const generatedModel = fc.record({
  series: fc.constantFrom(...SERIES),
  variant: fc.stringMatching(/^[a-z0-9]{1,3}$/),
  manufacturer: fc.constantFrom(1, 1, 1, 2, 3),
  productType: fc.constantFrom(1, 2),
  mpn: fc.stringMatching(/^[A-Z0-9]{1,3}-?[A-Z0-9]{0,3}$/),
  aliases: fc.uniqueArray(fc.constantFrom(...ALIASES), { maxLength: 2 }),
});

interface Stored {
  name: string;
  mpn: string;
  aliases: string[];
}

let hub: TestHub;
let knex: Knex;
let stored: Stored[];

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'models'] });
  knex = (await databaseOf(hub.broker)).knex;
  const generated = fc.sample(fc.array(generatedModel, { minLength: MODELS, maxLength: MODELS }), 1)[0];
  const rows = generated.map((model, i) => {
    const name = `${model.series} ${model.variant}-${i}`;
    // Unique as the registry requires: the number after the last hyphen is the model's own, in
    // its name and its part number.
    const mpn = `${model.mpn}-${i}`;
    return {
      name,
      mpn,
      manufacturer_id: model.manufacturer,
      product_type_id: model.productType,
      aliases: model.aliases,
      search_text: searchTextOf(name, mpn, model.aliases),
    };
  });
  await knex.raw(
    `insert into models.models (name, mpn, manufacturer_id, product_type_id, aliases, search_text)
     select name, mpn, manufacturer_id, product_type_id, aliases, search_text
     from jsonb_to_recordset(?::jsonb) as v(name text, mpn text, manufacturer_id int, product_type_id int, aliases text[], search_text text)`,
    [JSON.stringify(rows)],
  );
  // Renamed, moved and deleted models: their old suffixes must go and their new ones come.
  await knex.raw(`update models.models set name = 'Renamed ' || id, search_text = 'renamed ' || id || ' ' || lower(mpn)
    where id % 17 = 0`);
  await knex.raw('update models.models set manufacturer_id = 3 where id % 13 = 0');
  await knex.raw('update models.models set value = 1 where id % 11 = 0');
  // As a batch of upserts writes them: every field named, the words unchanged.
  await knex.raw('update models.models set search_text = search_text, value = 2 where id % 7 = 0');
  await knex.raw('delete from models.models where id % 19 = 0');
  await knex.raw('analyze models.models');
  stored = (await knex.raw('select name, mpn, aliases from models.models')).rows;
}, 120_000);
afterAll(() => hub.stop());

/** Every model in scope that the search may answer, ranked as the search documents it. */
async function reference(filter: SearchFilter): Promise<Array<{ id: number; tier: number; holds: boolean }>> {
  const terms = searchTerms(filter.model!)!;
  const scope = ['true'];
  if (filter.manufacturerId !== undefined) scope.push('manufacturer_id = :manufacturerId');
  if (filter.productTypeId !== undefined) scope.push('product_type_id = :productTypeId');
  if (filter.mpn !== undefined) scope.push('lower(mpn) = lower(:mpn)');
  const words = Object.fromEntries(terms.contains.map((pattern, i) => [`word${i}`, pattern]));
  const holds = terms.contains.length
    ? Object.keys(words)
        .map((key) => `search_text like :${key}`)
        .join(' and ')
    : 'false';
  const result = await knex.raw(
    `select id, tier, holds from (
       select *, case when lower(name) = :phrase or lower(mpn) = :phrase
                        or exists (select 1 from unnest(aliases) as alias where lower(alias) = :phrase) then 0
                      when starts_with is not null then 1
                      when holds then 2 end as tier
       from (select *, ${holds} as holds,
               least(case when lower(name) collate "C" like :prefix then lower(name) collate "C" end,
                     case when lower(mpn) collate "C" like :prefix then lower(mpn) collate "C" end) as starts_with
             from models.models where ${scope.join(' and ')}) scoped
     ) ranked
     where tier is not null
     order by tier, case when tier = 1 then starts_with end, case when tier = 1 then id end,
       case when tier = 2 then similarity(search_text, :phrase) end desc, lower(name) collate "C", id`,
    { ...filter, ...words, phrase: terms.phrase, prefix: terms.prefix },
  );
  return result.rows;
}

const piece = (text: string, start: number, length: number) => {
  const chars = [...text];
  const from = start % chars.length;
  return chars.slice(from, from + length).join('');
};

const queryArb = () =>
  fc.record(
    {
      model: fc.oneof(
        fc.constantFrom('book', 'BOOK', 'pad', 'ook pro', 'book pad', 'ab_c', '100%', 'zeta phone', 'nb', 'øøk'),
        fc.constantFrom('x', 'boo', 'pad-x', 'smart 1', 'o', 'book zeta', 'renamed', 'renamed 3'),
        fc
          .tuple(fc.constantFrom(...stored), fc.nat(), fc.integer({ min: 1, max: 7 }), fc.constantFrom('name', 'mpn'))
          .map(([model, start, length, field]) => piece(field === 'name' ? model.name : model.mpn, start, length)),
        fc.constantFrom(...stored).map((model) => model.name),
        fc
          .tuple(fc.constantFrom(...stored), fc.nat(), fc.nat())
          .map(([model, a, b]) => `${piece(model.name, a, 4)} ${piece(model.mpn, b, 2)}`),
      ),
      manufacturerId: fc.constantFrom(1, 2, 3, 4),
      productTypeId: fc.constantFrom(1, 2),
      mpn: fc.constantFrom(...stored).map((model) => model.mpn.toLowerCase()),
      limit: fc.constantFrom(1, 3, 10, 100),
    },
    { requiredKeys: ['model', 'limit'] },
  );

it('answers what the reference query answers', async () => {
  await fc.assert(
    fc.asyncProperty(queryArb(), async (filter) => {
      fc.pre(searchTerms(filter.model) !== null);
      const answer = (await searchModels(knex, filter)).map((row) => row.id);
      const ranked = await reference(filter);
      const holders = ranked.filter((row) => row.holds).length;
      if (holders <= FEW_HOLDERS) {
        expect(answer).toEqual(ranked.slice(0, filter.limit).map((row) => row.id));
        return;
      }
      // Tier 2 ranked some of many holders: the first tiers are exact, the rest hold the words.
      expect(answer).toHaveLength(Math.min(filter.limit, ranked.length));
      const firstTiers = ranked.filter((row) => row.tier < 2).map((row) => row.id);
      expect(answer.slice(0, firstTiers.length)).toEqual(firstTiers.slice(0, filter.limit));
      const byId = new Map(ranked.map((row) => [row.id, row]));
      const rest = answer.slice(firstTiers.length);
      for (const id of rest) expect(byId.get(id)).toMatchObject({ tier: 2, holds: true });
      const order = ranked.filter((row) => rest.includes(row.id)).map((row) => row.id);
      expect(rest).toEqual(order);
    }),
    { numRuns: 300 },
  );
}, 120_000);

it('keeps exactly the suffixes of every stored model', async () => {
  const difference = await knex.raw(`
    (select suffix, model_id, manufacturer_id from models.search_suffixes
     except select x.suffix, m.id, m.manufacturer_id from models.models m, models.suffixes_of(m.search_text) as x(suffix))
    union all
    (select x.suffix, m.id, m.manufacturer_id from models.models m, models.suffixes_of(m.search_text) as x(suffix)
     except select suffix, model_id, manufacturer_id from models.search_suffixes)`);
  expect(difference.rows).toEqual([]);
  const { count } = (await knex.raw('select count(*)::int as count from models.search_suffixes')).rows[0];
  expect(count).toBeGreaterThan(MODELS);
});

/** Models (of all phrases given) whose kept trigrams are stale or rank otherwise than pg_trgm's `similarity`. */
async function trigramsDiffering(phrases: string[]): Promise<number> {
  const { rows } = await knex.raw(
    `select count(*)::int as differing from models.models m, unnest(?::text[]) as phrase
      where m.search_trigrams is distinct from models.trigram_ids(m.search_text)
         or models.trigram_similarity(m.search_trigrams, models.trigram_ids(phrase)) <> similarity(m.search_text, phrase)`,
    [phrases],
  );
  return rows[0].differing;
}

const PHRASES = ['book', 'BOOK', 'øøk', 'bøøk pro 12', 'ab_c 100%', 'zeta phone', 'renamed 3', 'pad-x', '---', 'x'];

it("keeps every model's trigrams, ranking exactly as pg_trgm's similarity does", async () => {
  expect(await trigramsDiffering(PHRASES)).toBe(0);
  const { models, ranked } = (
    await knex.raw(
      `select count(*)::int as models, count(distinct similarity(search_text, 'book pro'))::int as ranked from models.models`,
    )
  ).rows[0];
  expect({ models: models > MODELS / 2, ranked: ranked > 5 }).toEqual({ models: true, ranked: true });
});

it('refuses a model without its trigrams', async () => {
  await expect(
    knex.raw('update models.models set search_trigrams = null where id = (select min(id) from models.models)'),
  ).rejects.toThrow(/search_trigrams_kept/);
});
