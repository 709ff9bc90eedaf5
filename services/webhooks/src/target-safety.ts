/**
 * Keeps webhooks from reaching inside the hub's network: a target host is resolved, every
 * address it resolves to must be global (or inside an explicitly allowed network), and the
 * connection then goes to the address that was checked, so a second lookup cannot swap it.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const NON_GLOBAL: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this" network
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // CGNAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64
  ['64:ff9b:1::', 48, 'ipv6'], // local NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
];

const denied = new BlockList();
for (const [network, prefix, family] of NON_GLOBAL) denied.addSubnet(network, prefix, family);

export class BlockedTargetError extends Error {
  readonly kind = 'blocked_address';
}

export class ResolveError extends Error {
  readonly kind = 'dns';
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export function allowList(networks: string[]): BlockList {
  const allowed = new BlockList();
  for (const cidr of networks) {
    const [network, prefix] = cidr.split('/');
    const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
    allowed.addSubnet(network, Number(prefix), family);
  }
  return allowed;
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d). Not a BlockList subnet: BlockList matches IPv4 addresses against it too. */
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+|[0-9a-f]{1,4}:[0-9a-f]{1,4})$/i;

export function isAllowedAddress(address: string, allowed: BlockList): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (allowed.check(address, family)) return true;
  if (family === 'ipv6' && IPV4_MAPPED.test(address)) return false;
  return !denied.check(address, family);
}

export type LookUp = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookUp: LookUp = (host) => lookup(host, { all: true, verbatim: true });

/** Resolves a host and answers the address to connect to; refuses when any address is not global. */
export async function resolveTarget(
  host: string,
  allowed: BlockList,
  lookUp: LookUp = systemLookUp,
): Promise<CheckedAddress> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(bare)) {
    addresses = [{ address: bare, family: isIP(bare) }];
  } else {
    try {
      addresses = await lookUp(bare);
    } catch (err) {
      throw new ResolveError(`Cannot resolve ${bare}: ${(err as Error).message}`);
    }
  }
  if (addresses.length === 0) throw new ResolveError(`${bare} has no address`);
  // Every address is checked: a name that also points inside must not be usable at all.
  const blocked = addresses.find((entry) => !isAllowedAddress(entry.address, allowed));
  if (blocked) throw new BlockedTargetError(`${bare} resolves to ${blocked.address}, which is not a global address`);
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

/**
 * Resolves and checks target hosts for attempts, keeping each host's answer for a while. A
 * lookup goes through the system's resolver on libuv's small thread pool, so a lookup per
 * attempt would cap every named target at what the resolver answers and add its time to each
 * delivery. The kept answer is the checked address the connection is pinned to, so keeping it
 * cannot let a later answer through unchecked. A failed lookup is not kept: the next attempt
 * asks again.
 */
export class TargetResolver {
  private readonly known = new Map<string, { checked: Promise<CheckedAddress>; until: number }>();

  constructor(
    private readonly allowed: BlockList,
    private readonly keptMs: number,
    private readonly maxHosts: number,
    private readonly lookUp: LookUp = systemLookUp,
  ) {}

  resolve(host: string): Promise<CheckedAddress> {
    const now = Date.now();
    const known = this.known.get(host);
    if (known && known.until > now) return known.checked;
    const checked = resolveTarget(host, this.allowed, this.lookUp);
    // Map order is insertion order: the first host is the one looked up longest ago.
    this.known.delete(host);
    if (this.known.size >= this.maxHosts) this.known.delete(this.known.keys().next().value as string);
    this.known.set(host, { checked, until: now + this.keptMs });
    checked.catch((err: unknown) => {
      if (err instanceof ResolveError && this.known.get(host)?.checked === checked) this.known.delete(host);
    });
    return checked;
  }
}
