import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { api, ApiError, ok, roleIncludes, setToken, type Me, type Role } from './api/client';

/** The tab's token: in sessionStorage only (gone with the tab), sent as a header, never in a URL. */
const KEY = 'orbit.token';

export interface Session {
  me: Me;
  /** Whether the token's role includes `role`: a control it would be refused is not shown. */
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

/** Asks the API who the token is; a refused one is forgotten at once. */
async function check(token: string, refused: () => void): Promise<Me> {
  setToken(token, refused);
  try {
    return await ok(api.GET('/auth/me'));
  } catch (error) {
    setToken(null);
    throw error;
  }
}

export function SessionGate({
  children,
  signIn,
}: {
  children: ComponentChildren;
  signIn: (props: SignInProps) => ComponentChildren;
}) {
  const [state, setState] = useState<State>(() =>
    sessionStorage.getItem(KEY) ? { kind: 'checking' } : { kind: 'signed-out' },
  );

  const signOut = (notice?: string) => {
    sessionStorage.removeItem(KEY);
    setToken(null);
    setState({ kind: 'signed-out', notice });
  };
  const refused = () => signOut('The API refused the token (revoked?): sign in again.');

  useEffect(() => {
    const token = sessionStorage.getItem(KEY);
    if (!token) return;
    check(token, refused).then(
      (me) => setState({ kind: 'signed-in', me }),
      () => signOut('The stored token is no longer accepted: sign in again.'),
    );
  }, []);

  const submit = async (token: string): Promise<string | undefined> => {
    try {
      const me = await check(token, refused);
      sessionStorage.setItem(KEY, token);
      setState({ kind: 'signed-in', me });
      return undefined;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return 'This token is unknown or revoked.';
      return error instanceof Error ? error.message : String(error);
    }
  };

  if (state.kind === 'checking') return <p class="loading">Loading…</p>;
  if (state.kind === 'signed-out') return <>{signIn({ submit, notice: state.notice })}</>;
  const session: Session = {
    me: state.me,
    can: (role) => roleIncludes(state.me.role, role),
    signOut: () => signOut(),
  };
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export interface SignInProps {
  /** Resolves to an error message, or undefined once signed in. */
  submit: (token: string) => Promise<string | undefined>;
  notice?: string;
}
