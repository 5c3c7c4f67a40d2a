import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  COOKIE_SESSION,
  ok,
  roleIncludes,
  setToken,
  type Credential,
  type Me,
  type Role,
} from '../api/client';

/** The tab's token: in sessionStorage only (gone with the tab), sent as a header, never in a URL. */
const KEY = 'orbit.token';

export interface Session {
  me: Me;
  /** Whether the caller's role includes `role`: a control it would be refused is not shown. */
  can: (role: Role) => boolean;
  signOut: () => void;
}

type State = { kind: 'checking' } | { kind: 'signed-out'; notice?: string } | { kind: 'signed-in'; me: Me };

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** A wrong token pasted in the sign-in form: no session existed, so none ended. */
const NOT_ACCEPTED = 'That token was not accepted: check it and try again.';
/** The token of a session this tab had (signed in, or kept from before a reload) is refused now. */
const TOKEN_ENDED = 'Your session has ended: Orbit no longer accepts its token (revoked?). Sign in again.';
/** The session cookie of a person is refused now (signed out elsewhere, expired, or removed). */
const COOKIE_ENDED = 'Your session has ended (signed out, expired, or removed by an admin). Sign in again.';

/**
 * Asks the API who the credential is. Only once it is accepted does a refusal end a session
 * (`ended`): a 401 to this first question is the answer, not the end of anything.
 */
async function check(credential: Credential, ended: () => void): Promise<Me> {
  setToken(credential);
  try {
    const me = await ok(api.GET('/auth/me'));
    setToken(credential, ended);
    return me;
  } catch (error) {
    setToken(null);
    throw error;
  }
}

const refusal = (error: unknown) => error instanceof ApiError && error.status === 401;
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Signed in by a token pasted here (kept for the tab), or as a person through the issuer (the
 * browser's session cookie, checked when no token is kept).
 */
export function SessionGate({
  children,
  signIn,
}: {
  children: ComponentChildren;
  signIn: (props: SignInProps) => ComponentChildren;
}) {
  const [state, setState] = useState<State>({ kind: 'checking' });
  const [person, setPerson] = useState(false);

  const forget = (notice?: string) => {
    sessionStorage.removeItem(KEY);
    setToken(null);
    setPerson(false);
    setState({ kind: 'signed-out', notice });
  };

  useEffect(() => {
    const token = sessionStorage.getItem(KEY);
    const credential = token ?? COOKIE_SESSION;
    const ended = () => forget(token ? TOKEN_ENDED : COOKIE_ENDED);
    check(credential, ended).then(
      (me) => {
        setPerson(!token);
        setState({ kind: 'signed-in', me });
      },
      (error: unknown) => {
        if (!token && refusal(error))
          forget(); // no session cookie: simply signed out
        else forget(refusal(error) ? TOKEN_ENDED : `Orbit could not check the session: ${messageOf(error)}`);
      },
    );
  }, []);

  const submit = async (token: string): Promise<string | undefined> => {
    try {
      const me = await check(token, () => forget(TOKEN_ENDED));
      sessionStorage.setItem(KEY, token);
      setState({ kind: 'signed-in', me });
      return undefined;
    } catch (error) {
      // the form's own answer replaces whatever the page said before it was sent
      setState({ kind: 'signed-out' });
      return refusal(error) ? NOT_ACCEPTED : messageOf(error);
    }
  };

  /** A person's session ends at Orbit, then (when the issuer has a sign-out page) at the issuer. */
  const signOut = async () => {
    if (!person) return forget();
    const { redirectTo } = await ok(api.POST('/auth/logout')).catch(() => ({ redirectTo: null }));
    forget();
    if (redirectTo) window.location.assign(redirectTo);
  };

  if (state.kind === 'checking') return <p class="loading">Loading…</p>;
  if (state.kind === 'signed-out') return <>{signIn({ submit, notice: state.notice })}</>;
  const session: Session = {
    me: state.me,
    can: (role) => roleIncludes(state.me.role, role),
    signOut: () => void signOut(),
  };
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export interface SignInProps {
  /** Resolves to an error message, or undefined once signed in. */
  submit: (token: string) => Promise<string | undefined>;
  notice?: string;
}
