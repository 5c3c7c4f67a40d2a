import type { Command } from 'commander';
import { ApiClient, CliError } from './api-client.js';
import { loadSettings } from './settings.js';

/** What every command gets: the API, and whether to print JSON. */
export interface Context {
  api: ApiClient;
  json: boolean;
}

/** From the global options (`--json`, `--url`) of the command being run. */
export function contextOf(command: Command): Context {
  const options = command.optsWithGlobals<{ json?: boolean; url?: string }>();
  const settings = loadSettings();
  return { api: new ApiClient({ ...settings, url: options.url ?? settings.url }), json: options.json ?? false };
}

/** `NAME=value` pairs of a repeated option, collected by commander. */
export function collectPair(pair: string, pairs: Record<string, string> = {}): Record<string, string> {
  const at = pair.indexOf('=');
  if (at <= 0) throw new CliError(`'${pair}' is not NAME=value`);
  return { ...pairs, [pair.slice(0, at)]: pair.slice(at + 1) };
}
