import { ATTEMPT_TIMEOUT_MS } from '../domain/delivery.js';

/** What nodemailer is given of ORBIT_SMTP_URL, and whether it must set up TLS before it logs in. */
export interface SmtpTransport {
  url: string;
  tlsRequired: boolean;
}

/** How a failed TLS set-up reads when Orbit required it (the SMTP server's own words follow). */
export const SMTP_TLS_REQUIRED =
  'no TLS with the SMTP server, and ORBIT_SMTP_URL holds credentials, which Orbit sends over TLS only ' +
  '(use smtps://, a server that offers STARTTLS, or add requireTLS=false to the URL to send them in clear)';

/**
 * ORBIT_SMTP_URL as nodemailer takes it: each step of the exchange bounded by an attempt's
 * timeout and, when the URL holds credentials over smtp://, STARTTLS required (nodemailer's
 * `requireTLS`, which also wins over `ignoreTLS`). Without it a server, or anyone on the path
 * who strips STARTTLS from its answer, gets the credentials in clear. `requireTLS=false` in the
 * URL is the explicit opt-out, for a relay on the same host.
 */
export function smtpTransportOf(smtpUrl: string): SmtpTransport {
  const url = new URL(smtpUrl);
  for (const name of ['connectionTimeout', 'greetingTimeout', 'socketTimeout']) {
    url.searchParams.set(name, String(ATTEMPT_TIMEOUT_MS));
  }
  const credentials = url.username !== '' || url.password !== '';
  const tlsRequired = url.protocol === 'smtp:' && credentials && url.searchParams.get('requireTLS') !== 'false';
  if (tlsRequired) url.searchParams.set('requireTLS', 'true');
  return { url: url.href, tlsRequired };
}
