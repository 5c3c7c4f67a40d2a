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

/** The OIDC issuer, through the authorization code flow with PKCE (S256), `state` and `nonce`. */
export abstract class OidcIssuer {
  /** The issuer's authorization URL for a new attempt, and the attempt's secrets. */
  abstract begin(redirectUri: string): Promise<{ url: string; state: string; nonce: string; codeVerifier: string }>;

  /**
   * Redeems the callback's code and checks everything (state, nonce, the ID token's signature,
   * audience, expiry and issuer): the person, or SignInRefused.
   */
  abstract finish(callbackUrl: URL, attempt: SignInAttempt): Promise<IssuedIdentity>;

  /** Where the browser goes to end the session at the issuer too, when it supports it. */
  abstract endSessionUrl(idToken: string | null, returnTo: string): Promise<string | null>;
}
