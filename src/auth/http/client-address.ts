import ipaddr from 'ipaddr.js';

/** The prefix an IPv6 client counts by: what one host, or one home, usually gets. */
const IPV6_PREFIX = 64;

/**
 * Who a request counts against when it has no token to count by: its client address as Fastify
 * found it (the socket's, or with trusted proxies the nearest untrusted one in X-Forwarded-For),
 * an IPv4-mapped IPv6 address as IPv4, and an IPv6 address by its /64, since whoever holds one
 * address of a /64 can use them all.
 */
export function clientOf(request: { ip?: string }): string {
  const ip = request.ip ?? '';
  if (!ipaddr.isValid(ip)) return ip || 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${IPV6_PREFIX}`);
  return `${network.toString()}/${IPV6_PREFIX}`;
}

/** Whether `address` (a socket's peer) is one of `proxies` (addresses and CIDR ranges, as ORBIT_TRUSTED_PROXIES). */
export function isTrustedProxy(address: string | undefined, proxies: readonly string[]): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  const peer = ipaddr.process(address);
  return proxies.some((entry) => {
    const [range, bits] = ipaddr.isValidCIDR(entry)
      ? ipaddr.parseCIDR(entry)
      : [ipaddr.process(entry), ipaddr.process(entry).kind() === 'ipv4' ? 32 : 128];
    const normalized =
      range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()
        ? (range as ipaddr.IPv6).toIPv4Address()
        : range;
    return peer.kind() === normalized.kind() && peer.match(normalized, bits);
  });
}
