/**
 * The hub's clock, for what depends on how old a row is (retention, the storage figures).
 *
 * Rows carry the database's real time; the clock maps real time to hub time. At the default rate
 * of 1 hub time is wall time. A simulation runs it faster (CLOCK_RATE), so a year of hub time
 * passes in an hour of traffic; a test moves it forward (`advance`) to see what a week later
 * holds. Ages are always judged in hub time: a row written before an advance of 8 days is 8 days
 * older right after it, one written after it is not.
 */
export class HubClock {
  /** From `realFrom` on, hub time is `hubFrom` plus the real time since, times the rate. */
  private readonly segments: Array<{ realFrom: number; hubFrom: number }>;

  constructor(
    readonly rate = 1,
    private readonly realNow: () => number = Date.now,
  ) {
    const start = realNow();
    this.segments = [{ realFrom: start, hubFrom: start }];
  }

  now(): Date {
    return new Date(this.hubTimeOf(this.realNow()));
  }

  /** Moves hub time forward by `ms` at once; rows written so far become that much older. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`The hub clock only moves forward, not by ${ms} ms`);
    const realNow = this.realNow();
    this.segments.push({ realFrom: realNow, hubFrom: this.hubTimeOf(realNow) + ms });
  }

  /** The stored (real) time before which a row is older than `ageMs` in hub time now. */
  storedCutoff(ageMs: number): Date {
    return new Date(this.realTimeOf(this.hubTimeOf(this.realNow()) - ageMs));
  }

  /** The stored (real) time at which `ms` of hub time from now will have passed, at the current rate. */
  storedTimeIn(ms: number): Date {
    return this.storedCutoff(-ms);
  }

  /** How old, in hub time, a row stamped with the stored (real) time `stored` is now. */
  ageOf(stored: Date): number {
    return this.hubTimeOf(this.realNow()) - this.hubTimeOf(stored.getTime());
  }

  private hubTimeOf(real: number): number {
    let segment = this.segments[0];
    for (const candidate of this.segments) if (candidate.realFrom <= real) segment = candidate;
    return segment.hubFrom + (real - segment.realFrom) * this.rate;
  }

  /** The inverse of `hubTimeOf`; a hub time skipped by an advance maps to the real time of the advance. */
  private realTimeOf(hub: number): number {
    for (let index = this.segments.length - 1; index >= 0; index--) {
      const segment = this.segments[index];
      if (hub < segment.hubFrom && index > 0) continue;
      const real = segment.realFrom + (hub - segment.hubFrom) / this.rate;
      const next = this.segments[index + 1];
      return next ? Math.min(real, next.realFrom) : real;
    }
    return this.segments[0].realFrom;
  }
}
