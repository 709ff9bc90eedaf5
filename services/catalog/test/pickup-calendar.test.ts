/**
 * Pickup dates from a carrier calendar: business days, cut-off in the carrier's time zone,
 * holidays, lead days and postal-code areas.
 */
import fc from 'fast-check';
import { isoWeekday, localDayAndHour, pickupComment, pickupDates, type PickupCalendar } from '../src/pickup-calendar';

const calendar: PickupCalendar = {
  timeZone: 'Europe/Oslo',
  weekdays: [1, 2, 3, 4, 5],
  cutoffHour: 14,
  leadDays: 1,
  horizonDays: 14,
  holidays: ['2026-12-24', '2026-12-25'],
  window: '09:00-16:00',
  areas: [{ postalCodeFrom: '9000', postalCodeTo: '9999', weekdays: [2, 4], window: '10:00-15:00' }],
};
const dates = (cal: PickupCalendar, postalCode: string, now: string) =>
  pickupDates(cal, postalCode, new Date(now)).map((entry) => entry.date);

describe('pickupDates', () => {
  it('starts lead days after an order placed before the cut-off', () => {
    // Monday 2026-11-23 10:00 in Oslo (09:00 UTC).
    expect(dates(calendar, '0150', '2026-11-23T09:00:00Z').slice(0, 3)).toEqual([
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
    ]);
  });

  it('counts an order after the cut-off from the next business day, in the carrier time zone', () => {
    // 13:30 UTC is 14:30 in Oslo: past the cut-off there, though not in UTC.
    expect(dates(calendar, '0150', '2026-11-23T13:30:00Z')[0]).toBe('2026-11-25');
    expect(dates(calendar, '0150', '2026-11-23T12:59:00Z')[0]).toBe('2026-11-24');
  });

  it('skips weekends and counts an order on Saturday from Monday', () => {
    const list = dates(calendar, '0150', '2026-11-28T09:00:00Z');
    expect(list[0]).toBe('2026-12-01');
    expect(list).not.toContain('2026-12-05');
    expect(list).not.toContain('2026-12-06');
  });

  it('leaves out holidays and does not count them as lead days', () => {
    // Wednesday 23 December after the cut-off: 24th and 25th are holidays, then the weekend.
    const list = dates(calendar, '0150', '2026-12-23T15:00:00Z');
    expect(list[0]).toBe('2026-12-29');
    expect(list).not.toContain('2026-12-24');
  });

  it('picks up in a postal-code area only on its weekdays and in its window', () => {
    const result = pickupDates(calendar, '9010', new Date('2026-11-23T09:00:00Z'));
    expect(result.map((entry) => entry.date).slice(0, 3)).toEqual(['2026-11-24', '2026-11-26', '2026-12-01']);
    expect(result[0].window).toBe('10:00-15:00');
    expect(pickupDates(calendar, '0150', new Date('2026-11-23T09:00:00Z'))[0].window).toBe('09:00-16:00');
  });

  it('allows a same-day pickup with no lead days before the cut-off', () => {
    expect(dates({ ...calendar, leadDays: 0 }, '0150', '2026-11-23T09:00:00Z')[0]).toBe('2026-11-23');
  });

  it('holds its rules for any moment and calendar (property)', () => {
    const weekdaySet = fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 });
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom('Europe/Oslo', 'Europe/Stockholm', 'America/New_York', 'Asia/Tokyo', 'UTC'),
        weekdaySet,
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 40 }),
        (now, timeZone, weekdays, cutoffHour, leadDays, horizonDays) => {
          const cal: PickupCalendar = { timeZone, weekdays, cutoffHour, leadDays, horizonDays };
          const result = pickupDates(cal, '1234', now).map((entry) => entry.date);
          const { day: today, hour } = localDayAndHour(now, timeZone);
          const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
          for (const [index, date] of result.entries()) {
            const day = dayOf(date);
            expect(weekdays).toContain(isoWeekday(day));
            expect(day).toBeLessThanOrEqual(today + horizonDays);
            expect(day).toBeGreaterThanOrEqual(today + leadDays);
            if (hour >= cutoffHour) expect(day).toBeGreaterThan(today);
            if (index > 0) expect(day).toBeGreaterThan(dayOf(result[index - 1]));
          }
        },
      ),
    );
  });
});

describe('pickupComment', () => {
  it('says the window, or the working hours when there is none', () => {
    expect(pickupComment('08:00-12:00')).toBe('Pickup between 08:00 and 12:00');
    expect(pickupComment(null)).toBe("Pickup during the carrier's working hours");
  });
});
