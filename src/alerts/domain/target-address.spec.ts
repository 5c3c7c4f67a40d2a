import { literalAddress, refusalOf, slackRefusalOf } from './target-address.js';

describe('slack channel targets', () => {
  it("Slack's incoming-webhook host over https is accepted", () => {
    expect(slackRefusalOf(new URL('https://hooks.slack.com/services/T000/B000/XXXX'))).toBeNull();
  });

  it.each([
    'http://hooks.slack.com/services/x',
    'https://slack.com/services/x',
    'https://evil.example/hooks.slack.com',
  ])('%s is refused', (url) => {
    expect(slackRefusalOf(new URL(url))).toContain('https://hooks.slack.com/');
  });
});

describe('alert target addresses', () => {
  it.each(['169.254.169.254', '169.254.0.1', 'fe80::1', '::ffff:169.254.169.254'])(
    '%s (link-local) is refused even with private targets allowed',
    (address) => {
      expect(refusalOf(address, true)).toContain('link-local');
      expect(refusalOf(address, false)).toContain('link-local');
    },
  );

  it.each([
    '127.0.0.1',
    '::1',
    '10.0.0.1',
    '192.168.1.10',
    '172.16.0.1',
    'fd00::1',
    '100.64.0.1',
    '0.0.0.0',
    '::ffff:127.0.0.1',
  ])('%s (loopback or private) is refused unless allowed', (address) => {
    expect(refusalOf(address, false)).toContain('ORBIT_ALERTS_ALLOW_PRIVATE');
    expect(refusalOf(address, true)).toBeNull();
  });

  it.each([
    '93.184.216.34',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
    '64:ff9b::93.184.216.34', // NAT64, as DNS64 answers on an IPv6-only network
    '2002:5db8:d822::1', // 6to4 through 93.184.216.34
    '2001:0:5db8:d822:8000:63bf:a247:27dd', // Teredo: server 93.184.216.34, client 93.184.216.34 inverted
  ])('%s (public, or carrying a public IPv4 address) is a target', (address) => {
    expect(refusalOf(address, false)).toBeNull();
  });

  it.each([
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['::ffff:0:169.254.169.254', 'link-local'],
    ['2001:0:a9fe:a9fe::1', 'link-local'], // Teredo server
    ['2001:0:5db8:d822:0:0:5601:5601', 'link-local'], // Teredo client: ~0x5601 = 0xa9fe
    ['::127.0.0.1', 'non-global'], // IPv4-compatible (deprecated): not global unicast
    ['::7f00:1', 'non-global'],
    ['::a9fe:a9fe', 'non-global'],
    ['100::1', 'discard'],
    ['64:ff9b:1::7f00:1', 'local-use NAT64'],
    ['64:ff9b:0:1::1', 'non-global'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'segmentRouting'],
    ['ff02::1', 'multicast'],
    ['fe80::1%eth0', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.175.48.1', 'as112'],
  ])('%s is never a target, even with private targets allowed (%s)', (address, reason) => {
    expect(refusalOf(address, true)).toContain(reason);
    expect(refusalOf(address, false)).toContain(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2001:0:7f00:1:0:0:a247:27dd', 'loopback'], // Teredo server
    ['2001:0:5db8:d822:0:0:f5ff:fffe', 'private'], // Teredo client: ~f5ff:fffe = 10.0.0.1
  ])('%s carries a %s IPv4 address: judged as that one', (address, range) => {
    expect(refusalOf(address, false)).toContain(`${range} address; set ORBIT_ALERTS_ALLOW_PRIVATE`);
    expect(refusalOf(address, false)).toContain('carrying the IPv4 address');
    expect(refusalOf(address, true)).toBeNull();
  });

  it('reads IP literals from URL hosts, brackets and all; names are not literals', () => {
    expect(literalAddress(new URL('http://[fe80::1]/').hostname)).toBe('fe80::1');
    expect(literalAddress(new URL('http://0x7f.1/').hostname)).toBe('127.0.0.1'); // URL parsing normalizes it
    expect(literalAddress('hooks.example.com')).toBeNull();
  });
});
