/** Hourly attempt buckets for the delivery health summary. */
import { hourlyBuckets } from '../src/health.actions';

const now = new Date('2026-11-22T10:25:00Z');

it('gives one bucket per hour, oldest first, the current hour last, empty hours included', () => {
  const buckets = hourlyBuckets([], 3, now);
  expect(buckets).toEqual([
    { hour: '2026-11-22T08:00:00.000Z', succeeded: 0, failed: 0 },
    { hour: '2026-11-22T09:00:00.000Z', succeeded: 0, failed: 0 },
    { hour: '2026-11-22T10:00:00.000Z', succeeded: 0, failed: 0 },
  ]);
});

it('adds succeeded and failed attempts to their hour and drops those outside the window', () => {
  const buckets = hourlyBuckets(
    [
      { hour: new Date('2026-11-22T10:00:00Z'), ok: true, count: 4 },
      { hour: new Date('2026-11-22T10:00:00Z'), ok: false, count: 1 },
      { hour: new Date('2026-11-22T09:00:00Z'), ok: false, count: 2 },
      { hour: new Date('2026-11-22T07:00:00Z'), ok: true, count: 9 },
    ],
    2,
    now,
  );
  expect(buckets).toEqual([
    { hour: '2026-11-22T09:00:00.000Z', succeeded: 0, failed: 2 },
    { hour: '2026-11-22T10:00:00.000Z', succeeded: 4, failed: 1 },
  ]);
});
