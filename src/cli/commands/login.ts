import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import { ApiClient, CliError } from '../api-client.js';
import { loadSettings, storeSettings } from '../settings.js';
import { printJson } from '../output.js';

/** How long `orbit login --sso` waits for the browser to come back. */
const SSO_WAIT_MS = 5 * 60_000;

interface Me {
  name: string;
  role: string | null;
}

/**
 * `orbit login`: checks the token against the API, then stores URL and token for the next
 * commands. With --sso, signs the person in through Orbit's issuer in a browser and stores a
 * personal token made for this command line.
 */
export function loginCommand(): Command {
  return new Command('login')
    .description("Store Orbit's URL and a token in the user's config folder (mode 0600)")
    .option('--token <token>', 'the API token (else read from stdin)')
    .option('--sso', "sign in through Orbit's issuer in a browser, for a personal token")
    .option('--team <team>', 'with --sso: the team the token is for, when you are in several')
    .option('--no-browser', 'with --sso: print the address to open, without opening a browser')
    .action(async (options: { token?: string; sso?: boolean; team?: string; browser: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<{ url?: string; json?: boolean }>();
      const url = (globals.url ?? loadSettings().url).replace(/\/+$/, '');
      let token: string | undefined;
      let expiresAt: string | null = null;
      if (options.sso) {
        ({ token, expiresAt } = await signInThroughBrowser(url, options.team, options.browser));
      } else {
        token = options.token ?? (await readToken());
      }
      if (!token) throw new CliError('No token given');
      const me = await new ApiClient({ url, token }).get<Me>('/auth/me');
      const file = storeSettings({ url, token });
      if (globals.json) printJson({ url, ...me, file, expiresAt });
      else {
        const until = expiresAt ? `; the token expires ${expiresAt}` : '';
        process.stdout.write(
          `Logged in to ${url} as '${me.name}' (${me.role ?? 'no role'}); stored in ${file}${until}\n`,
        );
      }
    });
}

/** Prompted for on a terminal, else piped in (`echo $TOKEN | orbit login`): never in the shell's history. */
async function readToken(): Promise<string> {
  if (!process.stdin.isTTY) return readFileSync(0, 'utf8').trim();
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await lines.question('Token: ')).trim();
  } finally {
    lines.close();
  }
}

/**
 * Listens on a loopback port, sends the person's browser to Orbit's sign-in with that port and a
 * PKCE challenge, and waits for the browser to bring back a one-time code, which only this
 * process (holding the verifier) can redeem for a personal token.
 */
async function signInThroughBrowser(
  url: string,
  team: string | undefined,
  openBrowser: boolean,
): Promise<{ token: string; expiresAt: string | null }> {
  const api = new ApiClient({ url, token: undefined });
  const providers = await api.get<{ oidc: { name: string } | null }>('/auth/providers');
  if (!providers.oidc) {
    throw new CliError(`${url} has no sign-in issuer set up: use \`orbit login --token <token>\` instead`);
  }
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  let arrived!: (code: string) => void;
  const code = new Promise<string>((resolve) => (arrived = resolve));
  const server: Server = createServer((request, response) => {
    const given = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('code');
    response.writeHead(given ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(given ? 'Signed in to Orbit: the command line has it. You can close this tab.\n' : 'No code\n');
    if (given) arrived(given);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const loginUrl = `${url}/auth/login?cli_port=${port}&cli_challenge=${challenge}`;
  process.stderr.write(`Sign in with ${providers.oidc.name} in your browser:\n  ${loginUrl}\n`);
  if (openBrowser) tryToOpen(loginUrl);
  let timer: NodeJS.Timeout | undefined;
  try {
    const got = await Promise.race([
      code,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CliError('No sign-in came back within 5 minutes')), SSO_WAIT_MS);
      }),
    ]);
    const issued = await api.post<{ token: string; expiresAt: string | null }>('/auth/cli-token', {
      code: got,
      verifier,
      name: `orbit CLI on ${hostname()}`,
      ...(team ? { team } : {}),
    });
    return { token: issued.token, expiresAt: issued.expiresAt };
  } finally {
    clearTimeout(timer);
    server.close();
  }
}

/** The desktop's browser, if there is one; the printed address is the way otherwise. */
function tryToOpen(address: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [address], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener: the address is printed
  }
}
