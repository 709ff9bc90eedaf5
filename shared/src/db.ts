/**
 * The process's database: a knex pool on a Postgres server, or on PGlite in this process, reached
 * by pg's client through a stream that speaks the wire protocol to it (embedded-wire.ts), so the
 * same pg/knex code runs in embedded mode.
 *
 * PGlite is a single session, so embedded mode uses one connection that every service shares;
 * that is why every table is schema-qualified and why no transaction may wait on another
 * service's action (it would wait for the connection it holds).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { setTimeout as delay } from 'node:timers/promises';
import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import type { HubConfig } from './config';
import { startEmbeddedAutovacuum } from './embedded-autovacuum';
import { EmbeddedWire, type WireDatabase } from './embedded-wire';
import { PG_ERRORS } from './pg-errors';

/** How often a process waiting for another's exclusive work (a migration) tries its lock again. */
const EXCLUSIVE_LOCK_RETRY_MS = 100;

/** How often the embedded database looks for tables to vacuum or analyze (embedded-autovacuum.ts). */
const EMBEDDED_AUTOVACUUM_INTERVAL_MS = 5_000;

// ids fit in 2^53; numeric stays a string so money keeps its exact digits; a date column stays
// `YYYY-MM-DD` instead of becoming a local-midnight Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

export interface Database {
  knex: Knex;
  kind: 'pglite' | 'postgres';
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Runs `work` while no other process of the cluster runs work under the same lock name. */
  exclusively<T>(lockName: string, work: () => Promise<T>): Promise<T>;
}

export interface EmbeddedDatabaseOptions {
  /** A directory to persist to; absent keeps the database in memory. */
  dataDir?: string;
  /** A dump of a prepared database (see `dumpEmbedded`) to start from. */
  template?: Blob;
}

/** `warn` hears of what goes wrong in the background: the embedded database's own maintenance. */
export async function openDatabase(
  config: HubConfig,
  embedded?: EmbeddedDatabaseOptions,
  warn: (message: string) => void = () => undefined,
): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config.databasePoolSize);
  return openEmbedded(embedded ?? { dataDir: path.resolve(config.dataDir, 'pg') }, warn);
}

/**
 * The first statement on each server connection. A Postgres backend allocates through glibc's
 * malloc, which at first gives memory freed above 128 KiB back to the system after each
 * statement, so the next statement faults it in again page by page, which can cost a short
 * statement more server CPU than its own work. Freeing one block above that threshold raises it
 * to the block's size and
 * lets the backend keep twice as much (mallopt(3), the dynamic mmap threshold). A backend's memory
 * contexts grow by blocks that double up to 8 MiB, and a block beyond what the backend keeps goes
 * back to the system and is faulted in again by the next statement, so the block freed here is
 * larger than any of them: a smaller one leaves the larger blocks faulting in as before. A backend
 * then keeps up to 16 MiB it freed. Other allocators ignore it; it costs one statement per
 * connection.
 */
const KEEP_FREED_MEMORY = `select length(repeat('x', ${8 * 1024 * 1024}))`;

function openPostgres(connectionString: string, poolSize: number): Database {
  const knex = knexFactory({
    client: 'pg',
    // Pipelined, a connection sends a query while the one before it still runs, so a transaction's
    // BEGIN and COMMIT travel with its statements (transactionInTwoFlights).
    connection: { connectionString, application_name: 'service-hub', pipeline: true } as Knex.PgConnectionConfig,
    pool: {
      min: 0,
      max: poolSize,
      afterCreate: (connection: pg.Client, done: (err: Error | undefined, connection: pg.Client) => void) => {
        connection.query(KEEP_FREED_MEMORY).then(
          () => done(undefined, connection),
          (err: Error) => done(err, connection),
        );
      },
    },
  });
  return {
    knex,
    kind: 'postgres',
    ping: async () => {
      await knex.raw('select 1');
    },
    close: () => knex.destroy(),
    // A session of its own, outside the pool, so the work may use every pooled connection; the
    // lock ends with the session, also when the process dies. The lock is tried, not waited for:
    // a session blocked in pg_advisory_lock keeps its statement's snapshot, and a CREATE INDEX
    // CONCURRENTLY run by the holder waits for every older snapshot, so the two would wait on each
    // other through the client, where Postgres cannot see the deadlock.
    exclusively: async (lockName, work) => {
      const session = new pg.Client({ connectionString, application_name: 'service-hub' });
      await session.connect();
      try {
        while (!(await session.query('select pg_try_advisory_lock(hashtext($1)) as locked', [lockName])).rows[0].locked)
          await delay(EXCLUSIVE_LOCK_RETRY_MS);
        return await work();
      } finally {
        await session.end();
      }
    },
  };
}

interface PGliteModule {
  PGlite: {
    create(options: Record<string, unknown>): Promise<PGliteInstance>;
  };
}
interface PGliteInstance extends WireDatabase {
  close(): Promise<void>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>;
}

/**
 * Creates a new embedded data directory (Postgres's initdb) in a worker thread. initdb runs as one
 * synchronous WASM call that would hold this thread's event loop for many seconds, and with it the
 * gateway that already answers `/health/ready` while the services start.
 */
async function initDataDirAside(dataDir: string): Promise<void> {
  const script = `
    const { workerData } = require('node:worker_threads');
    const { PGlite } = require(workerData.pglite);
    PGlite.create({ dataDir: workerData.dataDir }).then((db) => db.close());`;
  const worker = new Worker(script, {
    eval: true,
    workerData: { pglite: require.resolve('@electric-sql/pglite'), dataDir },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`Creating the embedded database in ${dataDir} failed (exit ${code})`)),
    );
  });
}

async function openEmbedded(options: EmbeddedDatabaseOptions, warn: (message: string) => void): Promise<Database> {
  // PGlite is an ESM-first package; its CommonJS build loads lazily so a process with a Postgres
  // server never pays for the WASM module.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PGlite } = require('@electric-sql/pglite') as PGliteModule;
  const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = require('@electric-sql/pglite/contrib/btree_gin');
  const { intarray } = require('@electric-sql/pglite/contrib/intarray');
  /* eslint-enable @typescript-eslint/no-require-imports */

  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
  if (options.dataDir && !options.template && !fs.existsSync(path.join(options.dataDir, 'PG_VERSION')))
    await initDataDirAside(options.dataDir);
  const pglite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.template,
    extensions: { pg_trgm, btree_gin, intarray },
  });
  const knex = knexFactory({
    client: 'pg',
    connection: { user: 'postgres', database: 'postgres', stream: () => new EmbeddedWire(pglite) },
    pool: { min: 1, max: 1 },
  });
  const stopAutovacuum = startEmbeddedAutovacuum(knex, EMBEDDED_AUTOVACUUM_INTERVAL_MS, (err) =>
    warn(`Vacuum and analyze of the embedded database failed (${err.message}); the next pass tries again`),
  );
  return {
    knex,
    kind: 'pglite',
    ping: async () => {
      await knex.raw('select 1');
    },
    // The data directory admits one process, and PGlite one session.
    exclusively: (_lockName: string, work: () => Promise<unknown>) => work(),
    close: async () => {
      await stopAutovacuum();
      await knex.destroy();
      await pglite.close();
    },
    // Used by test set-up to make a migrated template once per run.
    dump: () => pglite.dumpDataDir('none'),
  } as Database;
}

/** A prepared embedded database as a blob, for test suites to start from (see test support). */
export function dumpEmbedded(database: Database): Promise<Blob> {
  const dump = (database as Database & { dump?: () => Promise<Blob> }).dump;
  if (!dump) throw new Error('Only an embedded database can be dumped');
  return dump();
}

/** Runs `work` in a transaction, retrying it when Postgres reports a serialization conflict. */
export async function inTransaction<T>(
  knex: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  options: { isolation?: Knex.IsolationLevels; attempts?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await knex.transaction(work, options.isolation ? { isolationLevel: options.isolation } : undefined);
    } catch (err) {
      const code = (err as { code?: string }).code;
      const conflict = code === PG_ERRORS.SERIALIZATION_FAILURE || code === PG_ERRORS.DEADLOCK_DETECTED;
      if (!conflict || attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}

/** A statement of a write, built and not yet run. */
export type Statement = Knex.QueryBuilder | Knex.Raw;

/**
 * A statement a connection parses and plans once and then only runs: for the busiest writes,
 * whose text is long and the same each time, parsing and planning cost as much as running.
 */
export interface PreparedStatement {
  prepared: Statement;
}

export const prepared = (statement: Statement): PreparedStatement => ({ prepared: statement });

type FlightStatement = Statement | PreparedStatement;

/** What the statements of a transaction's second flight are and what the write answers. */
export interface ClosingFlight<T> {
  statements: FlightStatement[];
  result: T;
}

/**
 * Runs a write as one transaction in two round trips to the database: BEGIN goes with the
 * `opening` statements, and COMMIT with the statements `close` builds from their answers. A knex
 * transaction of the same statements takes two more, as BEGIN and COMMIT each wait for their
 * answer, and on the busiest writes each round trip costs more than its statement.
 *
 * When `close` throws, or a statement of either flight fails, the transaction is rolled back
 * and the error thrown. A connection that does not pipeline (the embedded database's) runs the
 * same statements one after another, in the same order and transaction.
 */
export async function transactionInTwoFlights<T>(
  knex: Knex,
  opening: FlightStatement[],
  close: (answers: pg.QueryResult[]) => ClosingFlight<T>,
): Promise<T> {
  const connection = (await knex.client.acquireConnection()) as pg.Client;
  try {
    const answers = await sendFlight(connection, ['BEGIN', ...opening]);
    const closing = close(answers.slice(1));
    await sendFlight(connection, [...closing.statements, 'COMMIT']);
    return closing.result;
  } catch (err) {
    // After a failed COMMIT flight no transaction is left open, and Postgres only warns.
    await connection.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/**
 * Sends the statements of a flight and answers their results in order. A pipelining connection
 * gets them all in one packet, and the first error is thrown once every statement has answered;
 * another runs them one after another up to the first error.
 */
async function sendFlight(
  connection: pg.Client,
  statements: Array<FlightStatement | string>,
): Promise<pg.QueryResult[]> {
  const send = (statement: FlightStatement | string) => {
    if (typeof statement === 'string') return connection.query(statement);
    const { sql, bindings } = ('prepared' in statement ? statement.prepared : statement).toSQL().toNative();
    const values = bindings as unknown[];
    if (!('prepared' in statement)) return connection.query(sql, values);
    // Named by its text, so a statement whose text varies (a list of rows) is one per variant.
    const name = `flight_${createHash('sha1').update(sql).digest('hex')}`;
    return connection.query({ name, text: sql, values });
  };
  if (!connection.pipeline) {
    const answers: pg.QueryResult[] = [];
    for (const statement of statements) answers.push(await send(statement));
    return answers;
  }
  const { stream } = (connection as unknown as { connection: { stream: Writable } }).connection;
  stream.cork();
  const sent = statements.map(send);
  stream.uncork();
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((answer) => (answer as PromiseFulfilledResult<pg.QueryResult>).value);
}

/**
 * Migrations of one service: files named `<timestamp>_<verb>_<noun>` in its `migrations` folder,
 * TypeScript in tests and compiled JavaScript in production.
 */
class FolderMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly folder: string) {}

  getMigrations(): Promise<string[]> {
    if (!fs.existsSync(this.folder)) return Promise.resolve([]);
    return Promise.resolve(
      fs
        .readdirSync(this.folder)
        .filter((file) => /^\d+_[a-z0-9_]+\.(js|ts)$/.test(file) && !file.endsWith('.d.ts'))
        .sort(),
    );
  }

  getMigrationName(file: string): string {
    return file.replace(/\.(js|ts)$/, '');
  }

  getMigration(file: string): Promise<Knex.Migration> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is found by its path at run time
    return Promise.resolve(require(path.join(this.folder, file)) as Knex.Migration);
  }
}

/**
 * Brings one service's schema up to date; safe to run from several instances at once. knex runs
 * the migrations under its own lock row, but creates that row and its tables unguarded, so
 * instances starting together on a new database would race there (and could leave two lock
 * rows, which fails every later migration); the whole step holds the schema's migration lock.
 */
export async function migrateSchema(database: Database, schema: string, folder: string): Promise<void> {
  // One service's migrations at a time in a database, not one per schema: extensions are the
  // database's, and two services creating the same one at once fail on its unique name.
  await database.exclusively('migrations', async () => {
    await database.knex.raw('create schema if not exists ??', [schema]);
    await database.knex.migrate.latest({
      schemaName: schema,
      tableName: 'knex_migrations',
      migrationSource: new FolderMigrationSource(folder),
    });
  });
}
