import { useState } from 'preact/hooks';
import type { SignInProps } from './session';

export function SignIn({ submit, notice }: SignInProps) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(await submit(token.trim()));
    setBusy(false);
  };

  return (
    <main class="sign-in">
      <h1>Orbit</h1>
      <p>
        Paste an API token: the first admin token Orbit printed at its first start, or one issued since. It is kept for
        this tab only.
      </p>
      {notice && <p role="status">{notice}</p>}
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
