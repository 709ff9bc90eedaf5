import { HubClock } from '../src/clock';

const DAY = 86_400_000;

/** A clock over a real time the test moves by hand. */
function clockAt(rate = 1) {
  const real = { now: Date.UTC(2026, 0, 1) };
  return { real, clock: new HubClock(rate, () => real.now) };
}

describe('HubClock', () => {
  it('shows wall time at rate 1: a row is as old as its stored time says', () => {
    const { real, clock } = clockAt();
    const stored = new Date(real.now);
    real.now += 3 * DAY;
    expect(clock.now().getTime()).toBe(real.now);
    expect(clock.ageOf(stored)).toBe(3 * DAY);
    expect(clock.storedCutoff(DAY).getTime()).toBe(real.now - DAY);
  });

  it('runs faster at a higher rate: a real hour is a year at 8760', () => {
    const { real, clock } = clockAt(8760);
    const stored = new Date(real.now);
    real.now += 3_600_000;
    expect(clock.ageOf(stored)).toBe(365 * DAY);
    // Rows older than 30 hub days were stored before this real time.
    expect(clock.storedCutoff(30 * DAY).getTime()).toBe(Math.trunc(real.now - (30 * DAY) / 8760));
  });

  it('ages rows written before an advance by the advance, and rows written after it not', () => {
    const { real, clock } = clockAt();
    const before = new Date(real.now);
    real.now += 1000;
    clock.advance(8 * DAY);
    real.now += 1000;
    const after = new Date(real.now);
    real.now += 1000;
    expect(clock.ageOf(before)).toBe(8 * DAY + 3000);
    expect(clock.ageOf(after)).toBe(1000);
    // Older than 7 days: everything stored up to the advance, nothing after it.
    const cutoff = clock.storedCutoff(7 * DAY).getTime();
    expect(cutoff).toBe(before.getTime() + 1000);
    expect(cutoff).toBeGreaterThan(before.getTime());
    expect(cutoff).toBeLessThan(after.getTime());
    // Older than 9 days: nothing yet.
    expect(clock.storedCutoff(9 * DAY).getTime()).toBeLessThan(before.getTime());
  });

  it('finds when a delay of hub time will have passed: sooner at a higher rate', () => {
    const wall = clockAt();
    expect(wall.clock.storedTimeIn(60_000).getTime()).toBe(wall.real.now + 60_000);
    const fast = clockAt(60);
    expect(fast.clock.storedTimeIn(60_000).getTime()).toBe(fast.real.now + 1000);
    expect(fast.clock.storedTimeIn(0).getTime()).toBe(fast.real.now);
  });

  it('only moves forward', () => {
    const { clock } = clockAt();
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });
});
