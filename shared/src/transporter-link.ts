/**
 * Whether this process reaches the transporter right now. Moleculer's NATS transporter only logs
 * the status of a nats 2.x client: its `connected` flags stay set while the client is cut off
 * and reconnecting. Without watching the client ourselves, readiness stayed green through a NATS
 * outage, and a call made meanwhile was buffered by the client, waited for the node watchdog,
 * and was still sent when NATS came back: run after its caller had been told 503.
 */
import type { ServiceBroker } from 'moleculer';

/** The parts of Moleculer's transit and the nats 2.x client read here; a test pins them. */
interface WatchedTransit {
  connected?: boolean;
  tx?: { client?: { status?(): AsyncIterable<{ type: string }> } };
}

interface LinkState {
  cutOff: boolean;
  /** How many times the link came back: a node reached before may not have resubscribed yet. */
  reconnects: number;
}

const links = new WeakMap<ServiceBroker, LinkState>();

/** True in-process (no transporter) and while the transporter is connected. */
export function isTransporterReachable(broker: ServiceBroker): boolean {
  const transit = broker.transit as WatchedTransit | undefined;
  return !transit || (Boolean(transit.connected) && !links.get(broker)?.cutOff);
}

/** How many times this process's link to the transporter came back after an outage. */
export function transporterReconnects(broker: ServiceBroker): number {
  return links.get(broker)?.reconnects ?? 0;
}

/**
 * Follows the NATS client's connection status from now until it closes, logging each outage once
 * when it starts and once when it ends.
 */
export function watchTransporterLink(broker: ServiceBroker): void {
  const client = (broker.transit as WatchedTransit | undefined)?.tx?.client;
  if (typeof client?.status !== 'function') return;
  const link: LinkState = { cutOff: false, reconnects: 0 };
  links.set(broker, link);
  const statuses = client.status();
  void (async () => {
    for await (const { type } of statuses) {
      if (type === 'disconnect' && !link.cutOff) {
        link.cutOff = true;
        broker.logger.warn('Transporter unreachable: calls to other nodes answer 503 until it returns');
      } else if (type === 'reconnect' && link.cutOff) {
        link.cutOff = false;
        link.reconnects += 1;
        broker.logger.warn('Transporter reachable again');
      }
    }
  })();
}
