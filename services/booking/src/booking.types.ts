/** The booking service's `this`. */
import type { OutboxDbService, PerWorld } from '@hub/shared';
import type { FirstStatuses } from './cases.store';

export type BookingThis = OutboxDbService & {
  /** The status each provider's new cases start with, read once per world. */
  firstStatuses: PerWorld<FirstStatuses>;
};
