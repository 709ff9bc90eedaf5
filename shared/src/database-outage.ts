/**
 * A database that cannot be reached is an outage, not a bug: the action's error becomes a 503
 * with `Retry-After` instead of a 500 with a stack per request, and the outage is logged once
 * when it starts and once when a ping finds the database again.
 */
import type { Context, Middleware, ServiceBroker } from 'moleculer';
import { openedDatabaseOf } from './context';
import { DatabaseUnavailableError } from './errors';

/** How often the database is pinged during an outage, to log its end. */
export const OUTAGE_PING_INTERVAL_MS = 1000;

/** Postgres SQLSTATEs of a server that is going, gone or full: class 08 (connection exception) and these. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket errors of a server that is not there. */
const UNREACHABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

/** Whether an error says the database could not be reached, rather than that a query was wrong. */
export function isDatabaseUnreachable(err: unknown): boolean {
  const error = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!error || typeof error !== 'object') return false;
  const code = typeof error.code === 'string' ? error.code : '';
  if (code.startsWith('08') && code.length === 5) return true;
  if (UNAVAILABLE_SQLSTATES.has(code) || UNREACHABLE_ERRNOS.has(code)) return true;
  // The pool found no connection in time (knex), or node-postgres lost the one it had (knex puts
  // the query before the message).
  if (error.name === 'KnexTimeoutError') return true;
  return (
    typeof error.message === 'string' &&
    /Connection terminated|connection error and is not queryable/.test(error.message)
  );
}

export function DatabaseOutageMiddleware(): Middleware {
  let broker: ServiceBroker;
  let watch: NodeJS.Timeout | undefined;

  function outageStarted(err: Error) {
    if (watch) return;
    broker.logger.warn(
      `Database unreachable (${err.message || String((err as { code?: unknown }).code)}): answering 503 until it returns`,
    );
    const pingUntilBack = async () => {
      const database = await openedDatabaseOf(broker);
      if (
        !(await database?.ping().then(
          () => true,
          () => false,
        ))
      )
        return;
      clearInterval(watch);
      watch = undefined;
      broker.logger.info('Database reachable again');
    };
    watch = setInterval(() => void pingUntilBack(), OUTAGE_PING_INTERVAL_MS);
    watch.unref();
  }

  return {
    name: 'DatabaseOutage',

    created(created: ServiceBroker) {
      broker = created;
    },

    localAction(next: (ctx: Context) => Promise<unknown>) {
      return function databaseOutageAware(ctx: Context) {
        return next(ctx).catch((err: Error) => {
          if (!isDatabaseUnreachable(err)) throw err;
          outageStarted(err);
          throw new DatabaseUnavailableError();
        });
      };
    },

    stopped() {
      clearInterval(watch);
    },
  } as unknown as Middleware;
}
