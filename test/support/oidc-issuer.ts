import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/** A person of the test issuer: whoever types this login on its sign-in page is them. */
export interface TestPerson {
  login: string;
  name: string;
  email: string;
  groups: string[];
}

/** How a test bends the ID token the issuer's token endpoint answers, as a forger would. */
export type IdTokenTamper = { claims: JWTPayload } | { signedWithOtherKey: true } | { algNone: true };

export interface TestIssuer {
  /** The issuer identifier (its loopback URL). */
  url: string;
  clientId: string;
  clientSecret: string;
  people: Map<string, TestPerson>;
  /** Set: the next answers of the token endpoint carry an ID token bent this way. */
  tamper: IdTokenTamper | null;
  /** With the device flow: how long a device code lives, in seconds (read when one is made). */
  deviceCodeSeconds: number;
  close(): Promise<void>;
}

export interface TestIssuerOptions {
  /** Offer the device authorization grant (RFC 8628); without it, the issuer's metadata names no device endpoint. */
  deviceFlow?: boolean;
  /** With deviceFlow: whether Orbit's client may use it (else the issuer answers unauthorized_client). Default true. */
  deviceGrantForOrbit?: boolean;
  /** With deviceFlow: the polling interval the issuer asks for (it names none otherwise: RFC 8628's 5 s then). */
  deviceInterval?: number;
}

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const KEY_ID = 'orbit-test-key';

/**
 * A real OpenID Connect issuer (oidc-provider, a certified implementation) on loopback, with one
 * client (Orbit at `redirectBase`/auth/callback) and these people. Its sign-in page is a plain
 * form that asks for a login (any password-free login of `people`); consent is given at once.
 * The ID token is signed with a key the fixture holds, so a test can forge one that fails exactly
 * one check.
 */
export async function startTestIssuer(
  redirectBases: string[],
  people: TestPerson[],
  options: TestIssuerOptions = {},
): Promise<TestIssuer> {
  const deviceFlow = options.deviceFlow === true;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: KEY_ID, alg: 'RS256', use: 'sig' };
  let provider: Provider | null = null;
  const server: Server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer: TestIssuer = {
    url,
    clientId: 'orbit',
    clientSecret: 'orbit-test-client-secret-0123456789',
    people: new Map(people.map((person) => [person.login, person])),
    tamper: null,
    deviceCodeSeconds: 600,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const configuration: Configuration = {
    clients: [
      {
        client_id: issuer.clientId,
        client_secret: issuer.clientSecret,
        redirect_uris: redirectBases.map((base) => `${base}/auth/callback`),
        post_logout_redirect_uris: redirectBases.map((base) => `${base}/ui/`),
        grant_types: [
          'authorization_code',
          ...(deviceFlow && options.deviceGrantForOrbit !== false ? [DEVICE_CODE_GRANT] : []),
        ],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username', 'groups'],
    },
    findAccount: (_ctx, id) => {
      const person = issuer.people.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          name: person.name,
          preferred_username: person.login,
          email: person.email,
          email_verified: true,
          groups: person.groups,
        }),
      };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true },
      deviceFlow: {
        enabled: deviceFlow,
        userCodeInputSource: (ctx, form, _out, err) => {
          ctx.body = devicePage(
            'enter the code',
            `${err ? `<p role="alert">${err.name === 'AbortedError' ? 'The sign-in was aborted' : 'That code is not valid'}</p>` : ''}${form}
            <button type="submit" form="op.deviceInputForm">Continue</button>`,
          );
        },
        userCodeConfirmSource: (ctx, form, _client, _deviceInfo, userCode) => {
          ctx.body = devicePage(
            'confirm',
            `<p>Is your device showing <code>${userCode}</code>?</p>${form}
            <button type="submit" form="op.deviceConfirmForm">Continue</button>
            <button type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Abort</button>`,
          );
        },
        successSource: (ctx) => {
          ctx.body = devicePage('signed in', '<p role="status">Signed in: return to your device</p>');
        },
      },
    },
    cookies: { keys: ['orbit-test-issuer-cookie-key'] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      DeviceCode: () => issuer.deviceCodeSeconds,
    },
  };
  // its one warning says its in-memory storage is for development: what a test run wants
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    provider = new Provider(url, configuration);
  } finally {
    console.warn = warn;
  }
  const callback = provider.callback();

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const interaction = /^\/interaction\/([^/?]+)(\/login)?/.exec(req.url ?? '');
    if (interaction) return signInPage(req, res, interaction[2] !== undefined);
    if (issuer.tamper && req.method === 'POST' && req.url?.startsWith('/token')) bendIdToken(res, issuer.tamper);
    if (options.deviceInterval && req.method === 'POST' && req.url?.startsWith('/device/auth')) {
      withInterval(res, options.deviceInterval);
    }
    await callback(req, res);
  }

  /** Adds the polling interval to the device authorization answer, as an issuer that names one sends it. */
  function withInterval(res: ServerResponse, interval: number): void {
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      const body = JSON.parse(String(chunk)) as { device_code?: string };
      if (!body.device_code) return end(chunk);
      const text = JSON.stringify({ ...body, interval });
      res.setHeader('content-length', Buffer.byteLength(text));
      return end(text);
    }) as typeof res.end;
  }

  async function signInPage(req: IncomingMessage, res: ServerResponse, submitted: boolean): Promise<void> {
    const details = await provider!.interactionDetails(req, res);
    if (details.prompt.name === 'consent') {
      const grant = new provider!.Grant({
        accountId: details.session!.accountId,
        clientId: String(details.params.client_id),
      });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      return provider!.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    if (submitted) {
      const login = new URLSearchParams(await bodyOf(req)).get('login') ?? '';
      if (issuer.people.has(login)) {
        return provider!.interactionFinished(
          req,
          res,
          { login: { accountId: login } },
          { mergeWithLastSubmission: false },
        );
      }
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html lang="en"><head><title>Test issuer: sign in</title></head><body><main>
      <h1>Test issuer</h1>${submitted ? '<p role="alert">Unknown login</p>' : ''}
      <form method="post" action="/interaction/${details.uid}/login">
        <label>Login <input name="login" autocomplete="username"></label>
        <button type="submit">Sign in</button>
      </form></main></body></html>`);
  }

  /** Rewrites the token endpoint's answer as the provider ends it: the same tokens, the ID token bent. */
  function bendIdToken(res: ServerResponse, tamper: IdTokenTamper): void {
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      const body = JSON.parse(String(chunk)) as { id_token?: string };
      if (!body.id_token) return end(chunk);
      void forged(body.id_token, tamper).then((idToken) => {
        const text = JSON.stringify({ ...body, id_token: idToken });
        res.setHeader('content-length', Buffer.byteLength(text));
        end(text);
      });
      return res;
    }) as typeof res.end;
  }

  async function forged(idToken: string, tamper: IdTokenTamper): Promise<string> {
    const payload = decodeJwt(idToken);
    const header = decodeProtectedHeader(idToken);
    if ('algNone' in tamper) {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${part({ alg: 'none', typ: 'JWT' })}.${part(payload)}.`;
    }
    const key = 'signedWithOtherKey' in tamper ? (await generateKeyPair('RS256')).privateKey : privateKey;
    const claims = 'claims' in tamper ? { ...payload, ...tamper.claims } : payload;
    return new SignJWT(claims).setProtectedHeader({ ...header, alg: 'RS256', kid: KEY_ID }).sign(key);
  }

  return issuer;
}

function devicePage(title: string, main: string): string {
  return `<!doctype html><html lang="en"><head><title>Test issuer: ${title}</title></head><body><main>
    <h1>Test issuer</h1>${main}</main></body></html>`;
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A browser without a screen: cookies per origin, redirects followed by hand. */
export class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();

  header(url: string): string {
    return [...(this.jars.get(new URL(url).origin) ?? new Map<string, string>())]
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  }

  keep(url: string, setCookies: string[]): void {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
    this.jars.set(origin, jar);
  }
}

/** The settings of an Orbit at `publicUrl` that signs people in through this issuer ("Test SSO"; `orbit-admins` are admins). */
export function issuerEnv(issuer: TestIssuer, publicUrl: string): Record<string, string> {
  return {
    ORBIT_PUBLIC_URL: publicUrl,
    ORBIT_OIDC_ISSUER: issuer.url,
    ORBIT_OIDC_CLIENT_ID: issuer.clientId,
    ORBIT_OIDC_CLIENT_SECRET: issuer.clientSecret,
    ORBIT_OIDC_NAME: 'Test SSO',
    ORBIT_OIDC_ADMIN_GROUPS: 'orbit-admins',
  };
}

/**
 * Walks a sign-in at the issuer as a browser would, from its authorization URL (Orbit's
 * /auth/login answer) to the URL it sends the browser back to (Orbit's callback, not followed).
 */
export async function throughIssuer(authorizationUrl: string, login: string, jar = new CookieJar()): Promise<string> {
  let url = authorizationUrl;
  let body: string | undefined;
  const issuerOrigin = new URL(authorizationUrl).origin;
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        cookie: jar.header(url),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body,
    });
    jar.keep(url, response.headers.getSetCookie());
    body = undefined;
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url).href;
      if (new URL(next).origin !== issuerOrigin) return next;
      url = next;
      continue;
    }
    const page = await response.text();
    const form = /<form method="post" action="([^"]+)"/.exec(page);
    if (!form) throw new Error(`The issuer answered ${response.status} without a way on: ${page.slice(0, 500)}`);
    url = new URL(form[1]!, url).href;
    body = new URLSearchParams({ login }).toString();
  }
  throw new Error('The sign-in at the issuer did not come back');
}

/**
 * Plays the person at the issuer's device pages with a real HTTP client: opens `address` (the
 * verification URI, complete with the user code, or bare and then `userCode` is typed in), signs
 * in as `login`, and confirms (or aborts). Answers the text of the last page.
 */
export async function throughDevicePages(
  address: string,
  login: string,
  { userCode, abort = false }: { userCode?: string; abort?: boolean } = {},
): Promise<string> {
  const jar = new CookieJar();
  let url = address;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 16; hop++) {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        cookie: jar.header(url),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: body?.toString(),
    });
    jar.keep(url, response.headers.getSetCookie());
    body = undefined;
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      continue;
    }
    const page = await response.text();
    // a page that says what went wrong (an aborted or unknown code) ends the walk
    if (/role="alert"/.test(page)) return page;
    const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page);
    if (!form) return page;
    url = new URL(form[1]!.replaceAll('&amp;', '&'), url).href;
    body = new URLSearchParams();
    for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)) {
      body.set(input[1]!, input[2]!);
    }
    if (/name="login"/.test(form[2]!)) body.set('login', login);
    if (/name="user_code" placeholder/.test(form[2]!)) body.set('user_code', userCode ?? '');
    if (body.get('confirm') === 'yes' && abort) {
      body.delete('confirm');
      body.set('abort', 'yes');
    }
  }
  throw new Error('The device pages of the issuer did not come to an end');
}
