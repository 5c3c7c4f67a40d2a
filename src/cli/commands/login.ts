import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import { ApiClient, CliError } from '../api-client.js';
import { loadSettings, storeSettings } from '../settings.js';
import { printJson } from '../output.js';

/** `orbit login`: checks the token against the API, then stores URL and token for the next commands. */
export function loginCommand(): Command {
  return new Command('login')
    .description("Store Orbit's URL and a token in the user's config folder (mode 0600)")
    .option('--token <token>', 'the API token (else read from stdin)')
    .action(async (options: { token?: string }, command: Command) => {
      const globals = command.optsWithGlobals<{ url?: string; json?: boolean }>();
      const url = (globals.url ?? loadSettings().url).replace(/\/+$/, '');
      const token = options.token ?? (await readToken());
      if (!token) throw new CliError('No token given');
      const me = await new ApiClient({ url, token }).get<{ name: string; role: string }>('/auth/me');
      const file = storeSettings({ url, token });
      if (globals.json) printJson({ url, ...me, file });
      else process.stdout.write(`Logged in to ${url} as '${me.name}' (${me.role}); stored in ${file}\n`);
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
