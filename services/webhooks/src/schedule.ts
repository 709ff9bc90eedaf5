/** When a failed delivery is tried again: the retry schedule with jitter, never sooner than the receiver's Retry-After. */
import { DELIVERY_SETTINGS } from './settings';

/**
 * The delay before the next attempt after `attemptsDone` attempts of this cycle, or undefined
 * when the schedule is used up and the delivery goes to the dead letter.
 */
export function nextDelayMs(
  schedule: number[],
  attemptsDone: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  if (attemptsDone >= schedule.length) return undefined;
  const base = schedule[attemptsDone];
  const delay = base + base * DELIVERY_SETTINGS.retryJitter * random();
  if (retryAfterMs === undefined) return delay;
  return Math.max(delay, Math.min(retryAfterMs, DELIVERY_SETTINGS.maxRetryAfterMs));
}
