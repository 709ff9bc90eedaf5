/**
 * Databases of their own for benchmarks on the Postgres server, so a run neither sees nor leaves
 * anything else there, and the last step of bringing a loaded database to rest.
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

/**
 * Writes what a benchmark's load left in memory to disk before the timed rounds, as a database
 * that has run a while has: otherwise the load's pages are flushed by a later checkpoint or the
 * kernel in the middle of the rounds, and the searches of that moment measure the flush.
 */
async function flushToDisk(knex) {
  await knex.raw('checkpoint');
}

module.exports = { scratchDatabase, flushToDisk };
