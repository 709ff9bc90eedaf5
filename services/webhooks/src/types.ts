/** The types of the webhooks service: its own `this`, and the params of its actions. */
import type { Service } from 'moleculer';
import type { DbService, DomainEvent, HubConfig } from '@hub/shared';
import type { DeliveryWorker } from './delivery-worker';

export type WebhooksThis = Service &
  DbService & {
    config: HubConfig;
    /** Made when the service starts, once its database is ready. */
    worker: DeliveryWorker;
  };

export interface IngestParams {
  events: DomainEvent[];
}
