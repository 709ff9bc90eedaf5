/**
 * Counts attempts per key in fixed windows, in this process: how an address's invalid tokens are
 * limited. Keys whose window has passed are dropped as the map grows, so it holds about one
 * window of keys.
 */
export class AttemptWindow {
  private readonly counts = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  count(key: string, now = Date.now()): void {
    const entry = this.counts.get(key);
    if (entry && entry.resetAt > now) entry.count += 1;
    else this.counts.set(key, { count: 1, resetAt: now + this.windowMs });
    if (this.counts.size > 10_000) this.dropExpired(now);
  }

  /** Seconds until the key may try again, or 0 while it is within the limit. */
  retryAfterSeconds(key: string, now = Date.now()): number {
    const entry = this.counts.get(key);
    if (!entry || entry.resetAt <= now || entry.count < this.limit) return 0;
    return Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
  }

  private dropExpired(now: number): void {
    for (const [key, entry] of this.counts) if (entry.resetAt <= now) this.counts.delete(key);
  }
}
