import { parseCookie, stringifySetCookie } from 'cookie';

/** The cookie that holds a signed-in person's session. */
export const SESSION_COOKIE = 'orbit_session';
/** The cookie that holds a sign-in's state between the start and the issuer's answer. */
export const SIGN_IN_COOKIE = 'orbit_sign_in';

/** A Set-Cookie value: HttpOnly, SameSite=Lax, and Secure when Orbit is reached over https. */
export function setCookie(name: string, value: string, publicUrl: string, maxAgeSeconds: number, path = '/'): string {
  return stringifySetCookie({
    name,
    value,
    httpOnly: true,
    sameSite: 'lax',
    secure: publicUrl.startsWith('https:'),
    path,
    maxAge: maxAgeSeconds,
  });
}

/** A cookie the request carries, if any. */
export function cookieOf(
  request: { headers: Record<string, string | string[] | undefined> },
  name: string,
): string | undefined {
  const header = request.headers.cookie;
  const text = Array.isArray(header) ? header.join('; ') : header;
  return text ? parseCookie(text)[name] || undefined : undefined;
}
