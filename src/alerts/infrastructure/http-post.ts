import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { ATTEMPT_ERRORS, type AttemptOutcome } from '../domain/delivery.js';
import { resolveTarget } from './dns-target-policy.js';

/** How much of a refusing answer's body an attempt keeps, to say why. */
const ERROR_BODY_BYTES = 200;

/**
 * POSTs `body` to `url` once: the address is resolved and checked now, and the connection goes
 * to that very address (the URL's host stays the Host header and the TLS name). Redirects are
 * not followed: a 3xx is a failed attempt like any other non-2xx.
 */
export async function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const target = new URL(url);
  try {
    const { address, family } = await resolveTarget(target, allowPrivate);
    const pinned: LookupFunction = (_host, options, callback) => {
      if (options.all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const status = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = send(
        target,
        {
          method: 'POST',
          lookup: pinned,
          signal,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept < ERROR_BODY_BYTES) chunks.push(chunk);
            kept += chunk.length;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).subarray(0, ERROR_BODY_BYTES).toString(),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    const ok = status.status >= 200 && status.status < 300;
    return {
      ok,
      httpStatus: status.status,
      smtpResponse: null,
      error: ok ? null : `HTTP ${status.status}${status.text ? `: ${status.text}` : ''}`,
      latencyMs: latency(),
    };
  } catch (error) {
    const message = !signal.aborted
      ? errorText(error)
      : (signal.reason as Error | undefined)?.name === 'TimeoutError'
        ? ATTEMPT_ERRORS.timeout
        : ATTEMPT_ERRORS.stopped;
    return { ok: false, httpStatus: null, smtpResponse: null, error: message, latencyMs: latency() };
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/^url: /, '');
  return String(error);
}
