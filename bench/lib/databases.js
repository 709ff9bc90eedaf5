/**
 * Databases of their own for benchmarks on the Postgres server, so a run neither sees nor leaves
 * anything else there.
 */
const { randomBytes } = require('node:crypto');
const knexFactory = require('knex');

/** The server benchmarks run on: BENCH_POSTGRES_URL, or the local one. */
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates a database named `<prefix>_<random>` on the server and resolves to its URL and a `drop`
 * that removes it, closing whatever connections are still open to it.
 */
async function scratchDatabase(prefix, serverUrl = POSTGRES_SERVER) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.raw(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.destroy();
      }
    },
  };
}

module.exports = { POSTGRES_SERVER, scratchDatabase };
