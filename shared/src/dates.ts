/**
 * Dates and instants as the API takes them: ISO 8601 text of a calendar day that exists (no
 * 2026-02-30), in the years 1 to 9999 that Postgres and every client agree on, with an optional
 * time and zone. A time without a zone is UTC, so the same text is the same instant on every node.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `YYYY-MM-DD` of a day that exists. */
export function isCalendarDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  if (year < 1) return false;
  // setUTCFullYear, unlike Date.UTC, does not read the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A day, or a day with a time (`T` or a space between) and an optional zone; null for anything else. */
export function parseInstant(text: string): Date | null {
  const match = INSTANT.exec(text.trim());
  if (!match || !isCalendarDay(match[1])) return null;
  const [, day, hours, minutes, seconds = '00', fraction = '', zone] = match;
  if (hours === undefined) return new Date(`${day}T00:00:00Z`);
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  const offset = zone && zone !== 'Z' ? zone.replace(/^([+-]\d{2}):?(\d{2})$/, '$1:$2') : 'Z';
  const parsed = new Date(`${day}T${hours}:${minutes}:${seconds}${fraction}${offset}`);
  // A zone can carry the first or the last day of the range past its edge.
  const year = parsed.getUTCFullYear();
  return Number.isNaN(parsed.getTime()) || year < 1 || year > 9999 ? null : parsed;
}
