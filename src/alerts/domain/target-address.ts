import ipaddr from 'ipaddr.js';

/** ipaddr.js's ranges that are the network's own: loopback, private, carrier-grade NAT, unique local. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal', 'unspecified']);
/** Where cloud metadata services answer: never a target, whatever the settings. */
const LINK_LOCAL = 'linkLocal';

/** Where Slack's incoming webhooks are. */
export const SLACK_WEBHOOK_HOST = 'hooks.slack.com';

/** Why a Slack channel may not post to `url`, or null when it may: only to Slack's incoming-webhook host, over https. */
export function slackRefusalOf(url: URL): string | null {
  if (url.protocol === 'https:' && url.hostname === SLACK_WEBHOOK_HOST) return null;
  return `url of a slack channel must be an incoming webhook on https://${SLACK_WEBHOOK_HOST}/, not ${url.protocol}//${url.hostname}`;
}

/**
 * Why an alert may not go to `address` (an IP literal), or null when it may. Link-local
 * addresses are always refused; loopback and private ones unless `allowPrivate`. An IPv4
 * address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 one.
 */
export function refusalOf(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return `'${address}' is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range === LINK_LOCAL) return `${address} is a link-local address, never an alert target`;
  if (range === 'multicast' || range === 'broadcast' || range === 'reserved') {
    return `${address} is a ${range} address, not an alert target`;
  }
  if (PRIVATE_RANGES.has(range) && !allowPrivate) {
    return `${address} is a ${range} address; set ORBIT_ALERTS_ALLOW_PRIVATE=true to allow loopback and private targets`;
  }
  return null;
}

/** The host of a URL as an IP literal (brackets of IPv6 taken off), or null when it is a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}
