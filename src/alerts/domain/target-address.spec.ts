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

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])('%s (public) is a target', (address) => {
    expect(refusalOf(address, false)).toBeNull();
  });

  it('reads IP literals from URL hosts, brackets and all; names are not literals', () => {
    expect(literalAddress(new URL('http://[fe80::1]/').hostname)).toBe('fe80::1');
    expect(literalAddress(new URL('http://0x7f.1/').hostname)).toBe('127.0.0.1'); // URL parsing normalizes it
    expect(literalAddress('hooks.example.com')).toBeNull();
  });
});
