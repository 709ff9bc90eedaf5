/** Dates and instants as the API takes them. */
import fc from 'fast-check';
import { isCalendarDay, parseInstant } from '../src/dates';

describe('calendar days', () => {
  it('takes days that exist, in the years 1 to 9999', () => {
    for (const day of ['2026-02-28', '2024-02-29', '0001-01-01', '9999-12-31']) expect(isCalendarDay(day)).toBe(true);
    for (const day of ['2026-02-29', '2026-02-30', '2024-13-45', '0000-01-01', '2026-1-1', '2026-01-01T00:00:00Z', ''])
      expect(isCalendarDay(day)).toBe(false);
  });

  it('agrees with the calendar for every day of the years 1 to 9999', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (date) => {
          expect(isCalendarDay(date.toISOString().slice(0, 10))).toBe(true);
        },
      ),
    );
  });
});

describe('instants', () => {
  it('reads a day as its midnight in UTC, and a time without a zone as UTC', () => {
    expect(parseInstant('2026-03-01')?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseInstant('2026-03-01 10:30')?.toISOString()).toBe('2026-03-01T10:30:00.000Z');
    expect(parseInstant('2026-03-01T10:30:15.250')?.toISOString()).toBe('2026-03-01T10:30:15.250Z');
  });

  it('applies a zone', () => {
    expect(parseInstant('2026-03-01T10:30:00+0100')?.toISOString()).toBe('2026-03-01T09:30:00.000Z');
    expect(parseInstant('2026-03-01T10:30:00-02:30')?.toISOString()).toBe('2026-03-01T13:00:00.000Z');
    expect(parseInstant('2026-03-01T10:30:00Z')?.toISOString()).toBe('2026-03-01T10:30:00.000Z');
  });

  it('refuses days and times that do not exist, and anything else', () => {
    for (const text of [
      '2026-02-30T10:00:00Z',
      '0000-01-01',
      '9999-12-31T23:59:59-14:00',
      '0001-01-01T00:00:00+14:00',
      '2026-03-01T24:00',
      '2026-03-01T10:60',
      '2026-03-01T10:00:61',
      'tomorrow',
      '2026-03-01T10',
      '1e9',
    ]) {
      expect(parseInstant(text)).toBeNull();
    }
  });
});
