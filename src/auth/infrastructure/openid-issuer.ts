import { Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { OrbitConfig, OidcSettings } from '../../config/orbit-config.js';
import {
  DeviceAuthorization,
  DeviceGrantUnavailable,
  DevicePoll,
  IssuedIdentity,
  OidcIssuer,
  SignInAttempt,
  SignInRefused,
} from '../application/oidc-issuer.js';

/** What Orbit asks the issuer for: who the person is, their email and their name (groups come with them). */
const SCOPE = 'openid email profile';
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628: the interval a client keeps when the issuer names none. */
const DEFAULT_DEVICE_INTERVAL = 5;
/** The issuer's errors that may pass: any other refusal of Orbit's fixed request is about its client's setup. */
const TRANSIENT_ERRORS = new Set(['server_error', 'temporarily_unavailable']);

/**
 * The issuer through openid-client, which does every check of the flow (PKCE, state, nonce, the
 * ID token's signature against the issuer's published keys, its audience, expiry and issuer).
 * Its metadata is fetched at the first sign-in and kept; a failed fetch is tried again at the next.
 */
@Injectable()
export class OpenIdIssuer extends OidcIssuer {
  private readonly logger = new Logger('SignIn');
  private configuration: Promise<oidc.Configuration> | null = null;
  /** The issuer refused Orbit's client the device grant: not offered again until Orbit restarts. */
  private deviceGrantRefused = false;

  constructor(private readonly config: OrbitConfig) {
    super();
  }

  async begin(redirectUri: string) {
    const configuration = await this.discovered();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  async finish(callbackUrl: URL, attempt: SignInAttempt): Promise<IssuedIdentity> {
    const configuration = await this.discovered();
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      return await identityOf(configuration, tokens);
    } catch (error) {
      throw refusal(error);
    }
  }

  async offersDeviceGrant(): Promise<boolean> {
    if (this.deviceGrantRefused) return false;
    try {
      return Boolean((await this.discovered()).serverMetadata().device_authorization_endpoint);
    } catch {
      return false; // unreachable now: the loopback sign-in says so when it is tried
    }
  }

  async startDevice(): Promise<DeviceAuthorization> {
    const configuration = await this.discovered();
    if (this.deviceGrantRefused || !configuration.serverMetadata().device_authorization_endpoint) {
      throw new DeviceGrantUnavailable('The issuer offers no device authorization grant');
    }
    const nonce = oidc.randomNonce();
    try {
      const started = await oidc.initiateDeviceAuthorization(configuration, { scope: SCOPE, nonce });
      return {
        deviceCode: started.device_code,
        userCode: started.user_code,
        verificationUri: started.verification_uri,
        verificationUriComplete: started.verification_uri_complete ?? null,
        interval: started.interval ?? DEFAULT_DEVICE_INTERVAL,
        expiresIn: started.expires_in,
        nonce,
      };
    } catch (error) {
      // issuers say unauthorized_client (Keycloak, Okta) or invalid_request (oidc-provider) for a client without the grant
      if (error instanceof oidc.ResponseBodyError && !TRANSIENT_ERRORS.has(error.error)) {
        this.deviceGrantRefused = true;
        const why = error.error_description ? `${error.error}: ${error.error_description}` : error.error;
        this.logger.warn(
          `The issuer refused Orbit's client the device grant (${why}); it is not offered until Orbit restarts`,
        );
        throw new DeviceGrantUnavailable(`The issuer does not let Orbit use the device grant (${why})`);
      }
      throw refusal(error);
    }
  }

  async pollDevice(deviceCode: string, nonce: string): Promise<DevicePoll> {
    const configuration = await this.discovered();
    let tokens: Awaited<ReturnType<typeof oidc.genericGrantRequest>>;
    try {
      // one request: the library's polling loop would hold the HTTP request open for minutes
      tokens = await oidc.genericGrantRequest(configuration, DEVICE_CODE_GRANT, { device_code: deviceCode });
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError) {
        switch (error.error) {
          case 'authorization_pending':
          case 'slow_down':
          case 'expired_token':
            return { status: error.error };
          case 'access_denied':
            return { status: 'access_denied', detail: error.error_description ?? null };
        }
      }
      throw refusal(error);
    }
    const claims = tokens.claims();
    if (!claims || !tokens.id_token) {
      throw new SignInRefused("The issuer's answer carries no ID token: the sign-in was refused", 'no id_token');
    }
    // the device grant defines no nonce; an issuer that echoes the one sent must echo it unchanged
    if (claims.nonce !== undefined && claims.nonce !== nonce) {
      const detail = 'unexpected ID Token "nonce" claim value (nonce)';
      throw new SignInRefused(`The issuer's answer failed Orbit's checks (${detail}): the sign-in was refused`, detail);
    }
    try {
      return { status: 'signed_in', identity: await identityOf(configuration, tokens) };
    } catch (error) {
      throw refusal(error);
    }
  }

  async endSessionUrl(idToken: string | null, returnTo: string): Promise<string | null> {
    const configuration = await this.discovered();
    if (!configuration.serverMetadata().end_session_endpoint) return null;
    return oidc.buildEndSessionUrl(configuration, {
      post_logout_redirect_uri: returnTo,
      ...(idToken ? { id_token_hint: idToken } : {}),
    }).href;
  }

  private discovered(): Promise<oidc.Configuration> {
    const settings = this.config.oidc!;
    this.configuration ??= discover(settings).catch((error: unknown) => {
      this.configuration = null;
      this.logger.warn(`The issuer ${settings.issuer} did not answer its discovery: ${(error as Error).message}`);
      throw new SignInRefused(
        `The sign-in service (${settings.displayName}) cannot be reached now: try again in a moment`,
        (error as Error).message,
        true,
      );
    });
    return this.configuration;
  }
}

/** The person of a token response whose ID token passed the library's checks, with the userinfo answer's claims. */
async function identityOf(
  configuration: oidc.Configuration,
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
): Promise<IssuedIdentity> {
  const claims = tokens.claims()!;
  const userinfo = configuration.serverMetadata().userinfo_endpoint
    ? await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub)
    : {};
  return { issuer: claims.iss, subject: claims.sub, claims: { ...userinfo, ...claims }, idToken: tokens.id_token! };
}

function discover(settings: OidcSettings): Promise<oidc.Configuration> {
  const url = new URL(settings.issuer);
  return oidc.discovery(
    url,
    settings.clientId,
    undefined,
    settings.clientSecret ? oidc.ClientSecretPost(settings.clientSecret) : oidc.None(),
    {
      execute: [
        // the ID token's signature is checked against the issuer's keys, though it came over TLS
        oidc.enableNonRepudiationChecks,
        // the settings allow http only on loopback (a test issuer)
        ...(url.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
      ],
    },
  );
}

/** The library's error and its causes, with the claim or header a check was about. */
function explain(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const about = (current.cause ?? {}) as { claim?: unknown; attribute?: unknown; header?: unknown };
    const named = about.claim ?? about.attribute;
    parts.push(typeof named === 'string' ? `${current.message} (${named})` : current.message);
    current = current.cause;
  }
  return [...new Set(parts)].join(': ');
}

/** What the person is told of a failed redemption; the library's words go to the log. */
function refusal(error: unknown): SignInRefused {
  if (error instanceof SignInRefused) return error;
  const message = explain(error) || String(error);
  if (error instanceof oidc.ResponseBodyError) {
    return new SignInRefused(
      `The issuer refused the sign-in's code (${error.error}): it may have been used already; start the sign-in again`,
      message,
    );
  }
  const code = (error as { code?: string }).code;
  if (error instanceof TypeError || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'ECONNREFUSED') {
    return new SignInRefused('The sign-in service cannot be reached now: try again in a moment', message, true);
  }
  return new SignInRefused(`The issuer's answer failed Orbit's checks (${message}): the sign-in was refused`, message);
}
