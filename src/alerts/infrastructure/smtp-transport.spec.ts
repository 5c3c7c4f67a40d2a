import { smtpTransportOf } from './smtp-transport.js';

describe('the SMTP transport of ORBIT_SMTP_URL', () => {
  it.each([
    ['smtp://orbit:pw@mail.example.com:587', true],
    ['smtp://orbit@mail.example.com', true],
    ['smtp://orbit:pw@mail.example.com?ignoreTLS=true', true],
    ['smtp://orbit:pw@mail.example.com?requireTLS=true', true],
    ['smtp://orbit:pw@127.0.0.1:25?requireTLS=false', false],
    ['smtps://orbit:pw@mail.example.com:465', false],
    ['smtp://mail.example.com:25', false],
  ])('%s: TLS required before the credentials: %s', (url, required) => {
    const transport = smtpTransportOf(url);
    expect(transport.tlsRequired).toBe(required);
    expect(new URL(transport.url).searchParams.getAll('requireTLS')).toEqual(
      required ? ['true'] : new URL(url).searchParams.getAll('requireTLS'),
    );
  });

  it("bounds each step of the exchange by an attempt's timeout", () => {
    const params = new URL(smtpTransportOf('smtp://mail.example.com?socketTimeout=99').url).searchParams;
    expect(['connectionTimeout', 'greetingTimeout', 'socketTimeout'].map((name) => params.getAll(name))).toEqual([
      ['10000'],
      ['10000'],
      ['10000'],
    ]);
  });
});
