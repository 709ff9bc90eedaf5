/** The booking service's `this`. */
import type { OutboxDbService, PerWorld, PerWorldByKey, StatusRules } from '@hub/shared';
import type { LookupNames } from './case-search';
import type { FirstStatuses } from './cases.store';

export type BookingThis = OutboxDbService & {
  /** The status each provider's new cases start with, read once per world. */
  firstStatuses: PerWorld<FirstStatuses>;
  /** Each partner's status mapping and blacklist, asked of the catalog once per world. */
  statusRules: PerWorldByKey<number, StatusRules>;
  /** The lookups' names a commonSearch reads, asked of the catalog once per world. */
  lookupNames: PerWorld<LookupNames>;
};
