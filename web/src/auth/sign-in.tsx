import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import type { SignInProps } from './session';

type Issuer = { name: string; loginUrl: string };

export function SignIn({ submit, notice }: SignInProps) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [issuer, setIssuer] = useState<Issuer | null>(null);

  useEffect(() => {
    // without an answer, the token form is the way in, as it always is
    ok(api.GET('/auth/providers')).then(
      (providers) => setIssuer(providers.oidc),
      () => setIssuer(null),
    );
  }, []);

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(await submit(token.trim()));
    setBusy(false);
  };

  return (
    <main class="sign-in">
      <h1>Orbit</h1>
      {notice && <p role="status">{notice}</p>}
      {issuer && (
        <p>
          <a class="button" href={issuer.loginUrl}>
            Sign in with {issuer.name}
          </a>
        </p>
      )}
      <p>
        {issuer ? 'Or paste' : 'Paste'} an API token: the first admin token Orbit printed at its first start, or one
        issued since. It is kept for this tab only.
      </p>
      <form onSubmit={(e) => void onSubmit(e)}>
        <label for="token">Token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-describedby={error ? 'token-error' : undefined}
          aria-invalid={error ? true : undefined}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {error && (
        <p id="token-error" role="alert" class="problem">
          {error}
        </p>
      )}
    </main>
  );
}
