/** The booking service's `this`. */
import type { OutboxDbService } from '@hub/shared';

export type BookingThis = OutboxDbService & { idempotencySweep?: NodeJS.Timeout };
