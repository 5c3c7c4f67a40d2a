import ipaddr from 'ipaddr.js';

/** ipaddr.js's ranges that are the network's own: loopback, private, carrier-grade NAT, unique local. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal', 'unspecified']);
/** Where cloud metadata services answer: never a target, whatever the settings. */
const LINK_LOCAL = 'linkLocal';
/** ipaddr.js's name for an address in no special range. */
const UNICAST = 'unicast';

/** Where Slack's incoming webhooks are. */
export const SLACK_WEBHOOK_HOST = 'hooks.slack.com';

/** Why a Slack channel may not post to `url`, or null when it may: only to Slack's incoming-webhook host, over https. */
export function slackRefusalOf(url: URL): string | null {
  if (url.protocol === 'https:' && url.hostname === SLACK_WEBHOOK_HOST) return null;
  return `url of a slack channel must be an incoming webhook on https://${SLACK_WEBHOOK_HOST}/, not ${url.protocol}//${url.hostname}`;
}

/**
 * Why an alert may not go to `address` (an IP literal), or null when it may. IPv4: public
 * unicast; loopback and private ones only with `allowPrivate`; link-local never, nor any other
 * special range. IPv6: global unicast (2000::/3, no special range); loopback and unique local
 * only with `allowPrivate`; the rest never. An IPv6 address that carries an IPv4 one the network
 * may deliver to (mapped, translated, NAT64, 6to4, Teredo) is judged by that IPv4 address.
 */
export function refusalOf(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return `'${address}' is not an IP address`;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return ipv4RefusalOf(parsed as ipaddr.IPv4, address, allowPrivate);
  // ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d; the URL parser keeps it what it is, ::xxxx:yyyy
  // (a zone, fe80::1%eth0, is no part of the address's range)
  const ipv6 = ipaddr.IPv6.parse(new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1));
  const embedded = embeddedIPv4(ipv6);
  if (embedded === 'unknown') {
    return `${address} is a local-use NAT64 address (64:ff9b:1::/48), whose IPv4 address cannot be told; not an alert target`;
  }
  if (embedded !== null) {
    for (const ipv4 of embedded) {
      const refusal = ipv4RefusalOf(ipv4, `${address} (carrying the IPv4 address ${ipv4.toString()})`, allowPrivate);
      if (refusal !== null) return refusal;
    }
    return null;
  }
  const range = ipv6.range();
  if (range === UNICAST && (ipv6.parts[0]! & 0xe000) === 0x2000) return null;
  return rangeRefusalOf(range === UNICAST ? 'non-global' : range, address, allowPrivate);
}

function ipv4RefusalOf(ipv4: ipaddr.IPv4, shown: string, allowPrivate: boolean): string | null {
  const range = ipv4.range();
  return range === UNICAST ? null : rangeRefusalOf(range, shown, allowPrivate);
}

function rangeRefusalOf(range: string, shown: string, allowPrivate: boolean): string | null {
  if (range === LINK_LOCAL) return `${shown} is a link-local address, never an alert target`;
  if (PRIVATE_RANGES.has(range)) {
    return allowPrivate
      ? null
      : `${shown} is a ${range} address; set ORBIT_ALERTS_ALLOW_PRIVATE=true to allow loopback and private targets`;
  }
  return `${shown} is a ${range} address, not an alert target`;
}

/**
 * The IPv4 addresses an IPv6 address carries where a translator or tunnel would deliver to
 * them; null when it carries none, 'unknown' for a NAT64 prefix of the network's own choosing.
 */
function embeddedIPv4(ipv6: ipaddr.IPv6): ipaddr.IPv4[] | 'unknown' | null {
  const p = ipv6.parts;
  const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (ipv6.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [ipv4(p[6]!, p[7]!)];
    case 'rfc6052': // 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 places it by a prefix length unknown here
      return p[2] === 0 ? [ipv4(p[6]!, p[7]!)] : 'unknown';
    case '6to4': // 2002:aabb:ccdd::/48, the relay's IPv4 address
      return [ipv4(p[1]!, p[2]!)];
    case 'teredo': // 2001:0:server:server:flags:port:~client:~client
      return [ipv4(p[2]!, p[3]!), ipv4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
    default:
      return null;
  }
}

/** The host of a URL as an IP literal (brackets of IPv6 taken off), or null when it is a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}
