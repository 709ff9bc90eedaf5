/**
 * Rate limit counters shared by every gateway instance (Redis, fixed windows). Embedded mode
 * uses moleculer-web's in-process store instead.
 */
import Redis from 'ioredis';

export class RedisRateLimitStore {
  readonly redis: Redis;
  resetTime: number;

  private readonly prefix: string;

  constructor(
    private readonly windowMs: number,
    options: { redisUrl: string; namespace: string },
  ) {
    this.prefix = `${options.namespace}:rate`;
    this.redis = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
    this.resetTime = this.windowEnd();
  }

  private windowEnd(): number {
    return (Math.floor(Date.now() / this.windowMs) + 1) * this.windowMs;
  }

  async inc(key: string): Promise<number> {
    this.resetTime = this.windowEnd();
    const windowKey = `${this.prefix}:${key}:${this.resetTime}`;
    const [[, count]] = (await this.redis.multi().incr(windowKey).pexpire(windowKey, this.windowMs).exec()) as [
      [Error | null, number],
    ];
    return count;
  }
}
