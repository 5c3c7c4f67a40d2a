import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
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

interface Providers {
  oidc: { name: string; deviceGrant?: boolean } | null;
}

interface Issued {
  token: string;
  expiresAt: string | null;
}

/** What POST /auth/device answers. */
interface DeviceSignIn {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  interval: number;
  expiresIn: number;
  handle: string;
}

/**
 * `orbit login`: checks the token against the API, then stores URL and token for the next
 * commands. With --sso, signs the person in through Orbit's issuer (its device grant where it
 * offers one, else a browser on this machine) and stores a personal token made for this command line.
 */
export function loginCommand(): Command {
  return new Command('login')
    .description("Store Orbit's URL and a token in the user's config folder (mode 0600)")
    .option('--token <token>', 'the API token (else read from stdin)')
    .option('--sso', "sign in through Orbit's issuer (a code to enter, or a browser here), for a personal token")
    .option('--team <team>', 'with --sso: the team the token is for, when you are in several')
    .option('--no-browser', 'with --sso: print the address to open, without opening a browser')
    .option('--loopback', 'with --sso: sign in with a browser on this machine, even where the issuer offers a code')
    .action(
      async (
        options: { token?: string; sso?: boolean; team?: string; browser: boolean; loopback?: boolean },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<{ url?: string; json?: boolean }>();
        const url = (globals.url ?? loadSettings().url).replace(/\/+$/, '');
        let token: string | undefined;
        let expiresAt: string | null = null;
        if (options.sso) {
          ({ token, expiresAt } = await signInThroughIssuer(url, options));
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
      },
    );
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

/** The device grant where the issuer offers it (and --loopback does not say otherwise), else the loopback sign-in. */
async function signInThroughIssuer(
  url: string,
  options: { team?: string; browser: boolean; loopback?: boolean },
): Promise<Issued> {
  const api = new ApiClient({ url, token: undefined });
  const providers = await api.get<Providers>('/auth/providers');
  if (!providers.oidc) {
    throw new CliError(`${url} has no sign-in issuer set up: use \`orbit login --token <token>\` instead`);
  }
  if (providers.oidc.deviceGrant && !options.loopback) {
    let started: DeviceSignIn | null = null;
    try {
      started = await api.post<DeviceSignIn>('/auth/device', {});
    } catch (error) {
      // the issuer named a device endpoint but refuses it to Orbit: the browser on this machine, then
      if (!(error instanceof CliError && error.status === 404)) throw error;
      process.stderr.write(`${error.message}\n`);
    }
    if (started) return signInWithCode(api, providers.oidc.name, started, options);
  }
  return signInThroughBrowser(api, providers.oidc.name, options.team, options.browser);
}

/**
 * Shows the person the issuer's code and where to enter it (on any device), then asks Orbit at
 * the issuer's interval, longer after a slow_down, until they confirmed, refused, or the code expired.
 */
async function signInWithCode(
  api: ApiClient,
  issuer: string,
  started: DeviceSignIn,
  options: { team?: string; browser: boolean },
): Promise<Issued> {
  process.stderr.write(
    `Sign in with ${issuer}:\n  Open ${started.verificationUri} and enter the code ${started.userCode}\n` +
      (started.verificationUriComplete ? `  or open ${started.verificationUriComplete}\n` : ''),
  );
  if (options.browser) tryToOpen(started.verificationUriComplete ?? started.verificationUri);
  const deadline = Date.now() + started.expiresIn * 1000;
  let interval = started.interval;
  for (;;) {
    await sleep(Math.min(interval * 1000, Math.max(0, deadline - Date.now())));
    if (Date.now() >= deadline) break;
    try {
      return await api.post<Issued>('/auth/device/token', {
        handle: started.handle,
        name: `orbit CLI on ${hostname()}`,
        ...(options.team ? { team: options.team } : {}),
      });
    } catch (error) {
      // the code expired at the issuer's clock before this one's: the same end, told the same way
      if (error instanceof CliError && error.status === 410) break;
      if (!(error instanceof CliError && error.status === 428)) throw error;
      const asked = Number(error.body?.interval);
      interval = Number.isFinite(asked) && asked > 0 ? asked : interval + (error.body?.code === 'slow_down' ? 5 : 0);
    }
  }
  throw new CliError(
    `The code ${started.userCode} expired before the sign-in was confirmed (${started.expiresIn} s): run \`orbit login --sso\` again`,
  );
}

/**
 * Listens on a loopback port, sends the person's browser to Orbit's sign-in with that port and a
 * PKCE challenge, and waits for the browser to bring back a one-time code, which only this
 * process (holding the verifier) can redeem for a personal token.
 */
async function signInThroughBrowser(
  api: ApiClient,
  issuer: string,
  team: string | undefined,
  openBrowser: boolean,
): Promise<Issued> {
  const url = api.url;
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
  process.stderr.write(`Sign in with ${issuer} in your browser:\n  ${loginUrl}\n`);
  if (openBrowser) tryToOpen(loginUrl);
  let timer: NodeJS.Timeout | undefined;
  try {
    const got = await Promise.race([
      code,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CliError('No sign-in came back within 5 minutes')), SSO_WAIT_MS);
      }),
    ]);
    const issued = await api.post<Issued>('/auth/cli-token', {
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
