/**
 * Finds a node that stopped answering within seconds instead of at the heartbeat timeout, so a
 * call to a killed or stalled process fails fast with a 503 instead of hanging until the call
 * timeout, and later calls go to the nodes that answer.
 *
 * A call to another node that is still unanswered after `probeAfterMs` makes this node ping that
 * one (Moleculer's PING is answered by the transit layer, so a node busy with slow calls still
 * answers it). Without a pong within `pingTimeoutMs`, the node is taken as gone: marked
 * disconnected, which fails every call pending on it (REQUEST_REJECTED, never retried: the call
 * may have run) and takes its services out of the registry. A node that was only paused is
 * discovered again at its next heartbeat.
 *
 * With the transporter unreachable, no call can be answered: pending calls fail at their probe,
 * and a new call fails before it is sent, so it cannot run later, when the link is back, after
 * its caller was told 503. Once the link is back, the first call to each node waits for that node
 * to answer a ping: NATS drops a message to a node that has not resubscribed yet, and the call
 * would hang until its timeout while the node, back a moment later, answers every probe.
 */
import { Errors, type Context, type Middleware, type ServiceBroker } from 'moleculer';
import { TransporterUnreachableError } from './errors';
import { isTransporterReachable, transporterReconnects, watchTransporterLink } from './transporter-link';

export const NODE_WATCHDOG_SETTINGS = {
  /**
   * How long a call to another node may go unanswered before that node is pinged: with the ping's
   * timeout, a call pending on a node that died is answered 503 within 2 s. A ping is cheap and
   * shared by every call waiting on the node, so a slow call costs one round trip.
   */
  probeAfterMs: 250,
  /** How long the ping may go unanswered before the node is taken as gone. */
  pingTimeoutMs: 1500,
};

type NodeCatalog = { disconnected(nodeID: string, unexpected: boolean): void };

export function NodeWatchdogMiddleware(): Middleware {
  let broker: ServiceBroker;
  /** One probe per node at a time, shared by the calls waiting on it; true when the node is gone. */
  const probes = new Map<string, Promise<boolean>>();
  /** The link's reconnect count when each node last answered a ping. */
  const answeredSince = new Map<string, number>();

  async function probe(nodeID: string): Promise<boolean> {
    if (!isTransporterReachable(broker)) return true;
    const reconnects = transporterReconnects(broker);
    const pong = await broker.ping(nodeID, NODE_WATCHDOG_SETTINGS.pingTimeoutMs);
    if (pong) {
      answeredSince.set(nodeID, reconnects);
      return false;
    }
    broker.logger.warn(
      `Node '${nodeID}' did not answer a ping in ${NODE_WATCHDOG_SETTINGS.pingTimeoutMs} ms: taken as gone`,
    );
    // Moleculer's typings leave out the registry's node catalog; a test pins its behaviour.
    (broker.registry as unknown as { nodes: NodeCatalog }).nodes.disconnected(nodeID, true);
    return true;
  }

  function probeOnce(nodeID: string): Promise<boolean> {
    let running = probes.get(nodeID);
    if (!running) {
      running = probe(nodeID)
        .catch(() => true)
        .finally(() => probes.delete(nodeID));
      probes.set(nodeID, running);
    }
    return running;
  }

  return {
    name: 'NodeWatchdog',

    created(created: ServiceBroker) {
      broker = created;
    },

    started() {
      watchTransporterLink(broker);
    },

    remoteAction(next: (ctx: Context) => Promise<unknown>) {
      function watched(ctx: Context, nodeID: string) {
        const call = next(ctx);
        let timer: NodeJS.Timeout | undefined;
        // Asked again while the call lasts, so a node that dies during a long call is found too.
        const gone = new Promise<never>((_resolve, reject) => {
          const watch = () => {
            timer = setTimeout(() => {
              // A disconnected node's pending calls are rejected by Moleculer; this covers the transporter.
              void probeOnce(nodeID).then((gone) => {
                if (gone) reject(new Errors.RequestRejectedError({ action: ctx.action?.name, nodeID }));
                else if (timer) watch();
              });
            }, NODE_WATCHDOG_SETTINGS.probeAfterMs);
          };
          watch();
        });
        return Promise.race([call, gone]).finally(() => {
          clearTimeout(timer);
          timer = undefined;
        });
      }

      return function watchedCall(ctx: Context) {
        const nodeID = ctx.nodeID;
        const target = { action: ctx.action?.name, nodeID };
        // Not sent, so surely not run.
        if (!isTransporterReachable(broker)) return Promise.reject(new TransporterUnreachableError(target));
        if (!nodeID) return next(ctx);
        const reconnects = transporterReconnects(broker);
        if ((answeredSince.get(nodeID) ?? 0) >= reconnects) return watched(ctx, nodeID);
        return probeOnce(nodeID).then((gone) => {
          // Not sent either: the retry policy may try another node.
          if (gone) throw new Errors.ServiceNotAvailableError(target);
          return watched(ctx, nodeID);
        });
      };
    },
  } as unknown as Middleware;
}
