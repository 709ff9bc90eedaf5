/**
 * Rate limit counters shared by every gateway instance (Redis, fixed windows). Embedded mode
 * uses moleculer-web's in-process store instead.
 */
import Redis from 'ioredis';

/** Counts a request in its window's key, which expires with the window: one command, atomic. */
const COUNT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type CountingRedis = Redis & { countInWindow(key: string, windowMs: number): Promise<number> };

export class RedisRateLimitStore {
  readonly redis: CountingRedis;
  resetTime: number;

  private readonly prefix: string;

  constructor(
    private readonly windowMs: number,
    options: { redisUrl: string; namespace: string },
  ) {
    this.prefix = `${options.namespace}:rate`;
    // Every request counts here: the requests of one turn of the event loop share one write.
    this.redis = new Redis(options.redisUrl, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      enableAutoPipelining: true,
    }) as CountingRedis;
    this.redis.defineCommand('countInWindow', { numberOfKeys: 1, lua: COUNT_IN_WINDOW });
    this.resetTime = this.windowEnd();
  }

  private windowEnd(): number {
    return (Math.floor(Date.now() / this.windowMs) + 1) * this.windowMs;
  }

  inc(key: string): Promise<number> {
    this.resetTime = this.windowEnd();
    return this.redis.countInWindow(`${this.prefix}:${key}:${this.resetTime}`, this.windowMs);
  }
}
