/** The booking service's `this`. */
import type { Service } from 'moleculer';
import type { DbService } from '@hub/shared';

export type BookingThis = Service &
  DbService & {
    relayOutbox(): void;
    replayIdempotent(partnerId: number, key: string, hash: string): Promise<{ guid: string } | null>;
  };
