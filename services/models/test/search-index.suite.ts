/**
 * One suite, run on PGlite and on the Postgres server: with the registry full enough that a scan
 * would cost, the planner answers the non-strict search and name resolution from the indexes;
 * and concurrent batches cannot break a uniqueness rule.
 */
import type { Knex } from 'knex';
import { databaseOf } from '@hub/shared';
import { resolveNameSql, searchSql } from '../src/models.store';
import { HOLDERS_READ_MAX, SIMILAR_CANDIDATES_MAX } from '../src/rules';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';

const ROWS = 30_000;

async function plan(knex: Knex, sql: string, bindings: unknown[], options = 'costs on'): Promise<string> {
  const result = await knex.raw(`explain (${options}) ${sql}`, bindings as Knex.RawBinding[]);
  return (result.rows as Array<{ 'QUERY PLAN': string }>).map((row) => row['QUERY PLAN']).join('\n');
}

export function searchIndexSuite(infra: boolean): void {
  let hub: TestHub;
  let knex: Knex;

  beforeAll(async () => {
    hub = await startTestHub({
      services: ['catalog', 'models', 'gateway'],
      infra,
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    });
    knex = (await databaseOf(hub.broker)).knex;
    await knex.raw(
      `insert into models.models (name, mpn, manufacturer_id, product_type_id, aliases, search_text)
       select name, mpn, 1 + n % 6, 1 + n % 5, array[alias], lower(name || ' ' || mpn || ' ' || alias)
       from (select n, initcap(substr(md5(n::text), 1, 8)) || ' ' || n as name, upper(substr(md5('mpn' || n), 1, 10)) as mpn,
                    'alias ' || substr(md5('alias' || n), 1, 6) as alias
             from generate_series(1, ?) as n) as generated`,
      [ROWS],
    );
    await knex.raw('analyze models.models');
    // Filling and indexing the table is CPU-bound: a loaded machine takes well over a minute.
  }, 240_000);
  afterAll(() => hub.stop());

  it('answers a non-strict search from the suffixes of the words', async () => {
    const { mpn } = (await knex.raw(`select mpn from models.models where name like '% 12345'`)).rows[0];
    const { sql, bindings } = searchSql({ model: mpn.slice(1, 8), limit: 10 });
    expect(await plan(knex, sql, bindings)).toMatch(/Index (Only )?Scan using search_suffixes_pkey/);
    const res = await hub.request('GET', `/api/v3/models?model=${mpn.slice(1, 8).toLowerCase()}`, {
      token: DEMO_TOKENS.elkjop,
    });
    expect(res.status).toBe(200);
    expect(res.body.map((model: { mpn: string }) => model.mpn)).toContain(mpn);
  });

  it('answers a search many names start with from the prefix index and never looks inside names', async () => {
    const { sql, bindings } = searchSql({ model: 'a', limit: 10 });
    const executed = await plan(knex, sql, bindings, 'analyze, costs off, timing off');
    expect(executed).toMatch(/Index (Only )?Scan using models_name_prefix/);
    expect(executed).toMatch(/Index (Only )?Scan using models_mpn_prefix/);
    expect(executed).toMatch(/Bitmap Index Scan on models_aliases_lowered/);
    expect(executed).not.toContain('models_search_trgm');
    const res = await hub.request('GET', '/api/v3/models?model=A', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(10);
    for (const model of res.body)
      expect(model.name.toLowerCase().startsWith('a') || model.mpn.toLowerCase().startsWith('a')).toBe(true);
  });

  it('looks inside names only when exact and prefix matches do not fill the limit', async () => {
    await knex.raw(
      `insert into models.models (name, mpn, manufacturer_id, product_type_id, search_text)
       select 'Tiered ' || n, 'TIER-' || n, 1, 1, 'tiered ' || n || ' tier-' || n from generate_series(1, 12) as n`,
    );
    const filled = searchSql({ model: 'tiered', limit: 10 });
    expect(await plan(knex, filled.sql, filled.bindings, 'analyze, costs off, timing off')).toMatch(
      /CTE Scan on containing \(never executed\)/,
    );
    const short = searchSql({ model: 'tiered', limit: 20 });
    expect(await plan(knex, short.sql, short.bindings, 'analyze, costs off, timing off')).toMatch(
      /CTE Scan on containing \(actual rows=12/,
    );
  });

  it('ranks a capped set of candidates when every model holds the words', async () => {
    const { sql, bindings } = searchSql({ model: 'alias', limit: 10 });
    const executed = await plan(knex, sql, bindings, 'analyze, costs off, timing off');
    // The candidates' scan stops at the cap instead of reading every match.
    expect(executed).toMatch(new RegExp(`Limit \\(actual rows=${SIMILAR_CANDIDATES_MAX}(\\.00)? loops=1\\)`));
    const res = await hub.request('GET', '/api/v3/models?model=ALIAS&limit=100', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(100);
    for (const model of res.body) expect(model.aliases[0]).toMatch(/^alias /);
  });

  it('reads a broad word within a manufacturer from the suffixes of that manufacturer alone', async () => {
    // Every model holds "alias"; manufacturer 7 holds none.
    const none = searchSql({ manufacturerId: 7, model: 'alias', limit: 10 });
    const executed = await plan(knex, none.sql, none.bindings, 'analyze, costs off, timing off');
    expect(executed).toMatch(/(Scan using|Bitmap Index Scan on) search_suffixes_manufacturer.*\(actual rows=0(\.00)? /);
    expect(executed).not.toContain('models_search_trgm');
    // Which way the planner reads a range this short (5,000 entries) depends on the server.
    const many = searchSql({ manufacturerId: 2, model: 'alias', limit: 10 });
    const manyPlan = await plan(knex, many.sql, many.bindings, 'analyze, costs off, timing off');
    expect(manyPlan).toContain('search_suffixes_manufacturer');
    expect(manyPlan).not.toContain('models_search_trgm');
  });

  it('reads the suffixes of the narrowest word when another is broad, and the rows themselves when all are', async () => {
    const { name } = (await knex.raw(`select name from models.models where name like '% 4321'`)).rows[0];
    const narrow = searchSql({ model: `alias ${name.slice(1, 6)}`, limit: 10 });
    const narrowPlan = await plan(knex, narrow.sql, narrow.bindings, 'analyze, costs off, timing off');
    expect(narrowPlan).toMatch(/on models models_\d+ \(never executed\)/);
    expect(narrowPlan).not.toMatch(/Bitmap Index Scan on models_search_trgm \(actual/);
    const res = await hub.request('GET', `/api/v3/models?model=${encodeURIComponent(`ALIAS ${name.slice(1, 6)}`)}`, {
      token: DEMO_TOKENS.elkjop,
    });
    expect(res.status).toBe(200);
    expect(res.body.map((model: { name: string }) => model.name)).toContain(name);
    // Every model holds both words: no suffix range is read, the rows are.
    const broad = searchSql({ model: 'alias lias', limit: 10 });
    const broadPlan = await plan(knex, broad.sql, broad.bindings, 'analyze, costs off, timing off');
    expect(broadPlan.match(/on search_suffixes search_suffixes_\d+ \(never executed\)/g)).toHaveLength(2);
    expect(broadPlan).toMatch(new RegExp(`on models m_\\d+ \\(actual rows=${SIMILAR_CANDIDATES_MAX}(\\.00)? `));
  });

  it('reads the suffixes of a short word held by more models than are read row by row when the other word is broad', async () => {
    // Every model holds "alias"; a two-character piece of hex is held by a tenth of them, which
    // the trigram index cannot narrow by (it has no trigram).
    const { piece, entries } = (
      await knex.raw(
        `select left(suffix, 2) as piece, count(*)::int as entries from models.search_suffixes
          where suffix ~ '^[0-9a-f]{2}' group by 1 having count(*) > ? order by count(*) limit 1`,
        [HOLDERS_READ_MAX],
      )
    ).rows[0];
    expect(entries).toBeLessThan(5000);
    const search = searchSql({ model: `alias ${piece}`, limit: 10 });
    const searchPlan = await plan(knex, search.sql, search.bindings, 'analyze, costs off, timing off');
    expect(searchPlan).not.toMatch(/Bitmap Index Scan on models_search_trgm \(actual/);
    expect(searchPlan).toMatch(
      new RegExp(`on search_suffixes search_suffixes_\\d+ \\(actual rows=${entries}(\\.00)? `),
    );
    const res = await hub.request(
      'GET',
      `/api/v3/models?model=${encodeURIComponent(`Alias ${piece.toUpperCase()}`)}&limit=100`,
      {
        token: DEMO_TOKENS.elkjop,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(100);
    for (const model of res.body as Array<{ name: string; mpn: string; aliases: string[] }>)
      expect([model.name, model.mpn, ...model.aliases].join(' ').toLowerCase()).toContain(piece);
  });

  it('answers a search within a manufacturer from an index too', async () => {
    const { sql, bindings } = searchSql({ manufacturerId: 2, model: '7771', limit: 10 });
    expect(await plan(knex, sql, bindings)).toMatch(/Index|Bitmap/);
    expect(await plan(knex, sql, bindings)).not.toContain('Seq Scan');
  });

  it('answers a strict mpn search without a scan', async () => {
    const { sql, bindings } = searchSql({ mpn: 'blk-99', limit: 10 });
    expect(await plan(knex, sql, bindings)).toContain('models_mpn_manufacturer');
  });

  it('resolves a name without a scan', async () => {
    const { name, alias } = (
      await knex.raw(`select name, aliases[1] as alias from models.models where name like '% 5'`)
    ).rows[0];
    const { sql, bindings } = resolveNameSql(alias)!;
    expect(await plan(knex, sql, bindings)).toContain('models_aliases_lowered');
    expect(await plan(knex, sql, bindings)).not.toContain('Seq Scan');
    expect(await hub.broker.call('models.resolveName', { name: alias.toUpperCase() })).toMatchObject({ name });
  });

  it('lets one of several concurrent batches take an mpn and names the field for the others', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        hub.request('POST', '/api/v3/models', {
          token: DEMO_TOKENS.elkjop,
          body: [{ manufacturer: 6, productType: 3, name: `Race ${i}`, mpn: 'RACE-MPN' }],
        }),
      ),
    );
    expect(results.map((res) => res.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const res of results.filter((result) => result.status === 400)) {
      expect(res.body).toEqual({
        error: {
          message: 'Fields validation failed',
          details: { '[0].mpn': ['A model with this mpn already exists for this manufacturer'] },
        },
      });
    }
  });
}
