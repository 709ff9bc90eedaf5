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

/**
 * A value read from the database once per world: data that only a world load changes (reference
 * data, the directory, providers' status keys), which a booking would otherwise read again each
 * time. Its service forgets it on `world.changed`, so every instance reads it again after a load
 * anywhere in the cluster; a failed read is not kept.
 */
export class PerWorld<T> {
  private read?: Promise<T>;

  constructor(private readonly load: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.read) {
      const read = this.load();
      this.read = read;
      read.catch(() => {
        if (this.read === read) this.read = undefined;
      });
    }
    return this.read;
  }

  forget(): void {
    this.read = undefined;
  }
}

/**
 * A PerWorld value for each key (a partner's competences): each key is read once per world, when
 * first asked for, and all are forgotten together.
 */
export class PerWorldByKey<K, T> {
  private readonly values = new Map<K, PerWorld<T>>();

  constructor(private readonly load: (key: K) => Promise<T>) {}

  get(key: K): Promise<T> {
    let value = this.values.get(key);
    if (!value) {
      value = new PerWorld(() => this.load(key));
      this.values.set(key, value);
    }
    return value.get();
  }

  forget(): void {
    this.values.clear();
  }
}
