/**
 * Pickup dates from a carrier's calendar. A carrier works on its weekdays except holidays (its
 * business days); an order placed after the cut-off hour, or on a day it does not work, counts
 * from its next business day; the first pickup is `leadDays` business days after that; dates are
 * listed up to `horizonDays` calendar days from today. A postal-code area may pick up on fewer
 * weekdays and in another time window. "Today" and the cut-off are in the carrier's time zone.
 */
import type { WorldShippingMethod } from '@hub/shared';

export type PickupCalendar = NonNullable<WorldShippingMethod['calendar']>;

export interface PickupDate {
  /** `YYYY-MM-DD`, a day in the carrier's time zone. */
  date: string;
  /** `HH:MM-HH:MM`, or null when the carrier names no window. */
  window: string | null;
}

const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01) and hour of `now` as a wall clock in `timeZone` shows them. */
export function localDayAndHour(now: Date, timeZone: string): { day: number; hour: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      hourCycle: 'h23',
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  return {
    day: Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) / DAY_MS,
    hour: Number(parts.hour),
  };
}

export const isoDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** 1 = Monday ... 7 = Sunday. */
export const isoWeekday = (day: number) => ((new Date(day * DAY_MS).getUTCDay() + 6) % 7) + 1;

function comparePostalCodes(a: string, b: string): number {
  const left = a.replace(/\s+/g, '').toUpperCase();
  const right = b.replace(/\s+/g, '').toUpperCase();
  if (/^\d+$/.test(left) && /^\d+$/.test(right)) return Number(left) - Number(right);
  return left < right ? -1 : left > right ? 1 : 0;
}

export function pickupDates(calendar: PickupCalendar, postalCode: string, now: Date): PickupDate[] {
  const holidays = new Set(calendar.holidays ?? []);
  const area = calendar.areas?.find(
    (entry) =>
      comparePostalCodes(entry.postalCodeFrom, postalCode) <= 0 &&
      comparePostalCodes(postalCode, entry.postalCodeTo) <= 0,
  );
  const pickupWeekdays = area?.weekdays ?? calendar.weekdays;
  const window = area?.window ?? calendar.window ?? null;
  const isBusinessDay = (day: number) => calendar.weekdays.includes(isoWeekday(day)) && !holidays.has(isoDate(day));

  const { day: today, hour } = localDayAndHour(now, calendar.timeZone);
  const lastDay = today + calendar.horizonDays;
  const nextBusinessDay = (day: number) => {
    let next = day + 1;
    while (next <= lastDay && !isBusinessDay(next)) next += 1;
    return next;
  };

  let first = isBusinessDay(today) && hour < calendar.cutoffHour ? today : nextBusinessDay(today);
  for (let lead = 0; lead < calendar.leadDays && first <= lastDay; lead += 1) first = nextBusinessDay(first);

  const dates: PickupDate[] = [];
  for (let day = first; day <= lastDay; day += 1) {
    if (pickupWeekdays.includes(isoWeekday(day)) && !holidays.has(isoDate(day)))
      dates.push({ date: isoDate(day), window });
  }
  return dates;
}

/** The extended form's comment: the pickup window as a customer reads it. */
export function pickupComment(window: string | null): string {
  if (!window) return "Pickup during the carrier's working hours";
  const [from, to] = window.split('-');
  return `Pickup between ${from} and ${to}`;
}
