/**
 * Clears this node's cached lookups when a world is loaded anywhere in the cluster, so a loaded
 * change is visible at once. With the Redis cacher the first node to hear it clears for all.
 */
import type { ServiceSchema } from 'moleculer';

export const WorldCacheMixin: Partial<ServiceSchema> = {
  events: {
    'world.changed': {
      async handler(this: { broker: { cacher?: { clean(match?: string): Promise<unknown> } } }) {
        await this.broker.cacher?.clean();
      },
    },
  },
};
