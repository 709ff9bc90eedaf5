const { PGlite } = require('@electric-sql/pglite');
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm');
(async () => {
  let t = Date.now();
  const a = await PGlite.create({ extensions: { pg_trgm } });
  console.log('memory create', Date.now() - t); t = Date.now();
  await a.exec('create extension pg_trgm; create schema x; create table x.t(id int)');
  const dump = await a.dumpDataDir('none');
  console.log('dump', Date.now() - t, dump.size); t = Date.now();
  const b = await PGlite.create({ extensions: { pg_trgm }, loadDataDir: dump });
  console.log('load from dump', Date.now() - t); t = Date.now();
  console.log((await b.query('select count(*) from x.t')).rows);
  const c = await PGlite.create({ dataDir: '/tmp/pocdata', extensions: { pg_trgm } });
  console.log('reopen existing dir', Date.now() - t);
})();
