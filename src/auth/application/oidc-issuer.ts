/** What a sign-in must find again at the callback: kept by Orbit between the two requests. */
export interface SignInAttempt {
  state: string;
  nonce: string;
  codeVerifier: string;
  createdAt: Date;
  /** A sign-in for the command line: the loopback port it listens on, and its PKCE challenge. */
  cli: { port: number; challenge: string } | null;
}

/** The person the issuer vouched for, with the claims of the ID token and of the userinfo answer. */
export interface IssuedIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
  idToken: string;
}

/** A sign-in the callback refused: `reason` is shown to the person, `detail` only logged. */
export class SignInRefused extends Error {
  constructor(
    readonly reason: string,
    readonly detail?: string,
    /** The issuer could not be reached (a 502, not the person's fault). */
    readonly unreachable = false,
  ) {
    super(reason);
    this.name = 'SignInRefused';
  }
}

/** A device authorization the issuer started (RFC 8628): what the person is shown, and what Orbit keeps. */
export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  /** Seconds between two polls, as the issuer asks (5 when it says nothing). */
  interval: number;
  expiresIn: number;
  /** Sent with the request: an ID token that carries a nonce must carry this one. */
  nonce: string;
}

/** One poll of the issuer's token endpoint for a device code. */
export type DevicePoll =
  | { status: 'authorization_pending' }
  | { status: 'slow_down' }
  | { status: 'access_denied'; detail: string | null }
  | { status: 'expired_token' }
  | { status: 'signed_in'; identity: IssuedIdentity };

/** The issuer offers no device authorization grant, or refuses it to Orbit's client. */
export class DeviceGrantUnavailable extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'DeviceGrantUnavailable';
  }
}

/**
 * The OIDC issuer, through the authorization code flow with PKCE (S256), `state` and `nonce`,
 * and through the device authorization grant where the issuer offers it.
 */
export abstract class OidcIssuer {
  /** The issuer's authorization URL for a new attempt, and the attempt's secrets. */
  abstract begin(redirectUri: string): Promise<{ url: string; state: string; nonce: string; codeVerifier: string }>;

  /**
   * Redeems the callback's code and checks everything (state, nonce, the ID token's signature,
   * audience, expiry and issuer): the person, or SignInRefused.
   */
  abstract finish(callbackUrl: URL, attempt: SignInAttempt): Promise<IssuedIdentity>;

  /** Whether the issuer's metadata names a device authorization endpoint that has not refused Orbit's client. */
  abstract offersDeviceGrant(): Promise<boolean>;

  /** Starts a device authorization at the issuer, or DeviceGrantUnavailable, or SignInRefused. */
  abstract startDevice(): Promise<DeviceAuthorization>;

  /**
   * Asks the issuer once for the device code's tokens; a signed-in person only once the ID token
   * passed every check (signature, audience, expiry, issuer, and the nonce when it carries one).
   */
  abstract pollDevice(deviceCode: string, nonce: string): Promise<DevicePoll>;

  /** Where the browser goes to end the session at the issuer too, when it supports it. */
  abstract endSessionUrl(idToken: string | null, returnTo: string): Promise<string | null>;
}
