/** The world and settings of the webhooks tests that run a hub on a database of the Postgres server. */
import { randomBytes } from 'node:crypto';
import { DEMO_WORLD_FILE, readWorld, type World } from '../../../../shared/src';

/** The demo world whose one webhook subscription (id 1) is Power's (account 3, partner 2), to `eventTypes` at `url`. */
export function worldWithOneSubscription(url: string, eventTypes: string[]): World {
  const demo = readWorld(DEMO_WORLD_FILE);
  return {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      subscriptions: [{ id: 1, accountId: 3, eventTypes, target: { kind: 'http' as const, url } }],
    },
  };
}

/**
 * The environment of a hub on `databaseUrl`, in a namespace of its own, quiet, without the demo
 * world or metrics, whose webhooks may call receivers on loopback; `more` adds to it.
 */
export function serverHubEnv(databaseUrl: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'error',
    LOAD_DEMO_WORLD: 'false',
    METRICS: 'false',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    ...more,
  };
}
