import { Command, CommanderError } from 'commander';
import { applyCommand, exportCommand } from './commands/apply.js';
import { eventsCommand, tokensCommand, workersCommand } from './commands/admin.js';
import { jobsCommand } from './commands/jobs.js';
import { loginCommand } from './commands/login.js';
import { logsCommand, runCommand, runsCommand } from './commands/runs.js';

/**
 * `orbit`, the command line of the REST API: it knows Orbit only by ORBIT_URL and ORBIT_TOKEN
 * (or what `orbit login` stored), so it can do what the token may, from any machine.
 */
export function program(): Command {
  const root = new Command('orbit')
    .description('Orbit from the shell and from CI, through its REST API (ORBIT_URL, ORBIT_TOKEN or `orbit login`)')
    .option('--json', 'print the API’s JSON, for scripts')
    .option('--url <url>', 'the Orbit to talk to (default: ORBIT_URL, the login, http://localhost:3000)')
    .addCommand(loginCommand())
    .addCommand(jobsCommand())
    .addCommand(runCommand())
    .addCommand(runsCommand())
    .addCommand(logsCommand())
    .addCommand(workersCommand())
    .addCommand(tokensCommand())
    .addCommand(
      // src/cli.ts hands `orbit token …` to the server's code before this program is loaded
      new Command('token')
        .description('Tokens on the database, without the API (the first token)')
        .allowUnknownOption()
        .allowExcessArguments()
        .action(() => {
          throw new Error('`token` comes first, without options before it: orbit token --help');
        }),
    )
    .addCommand(eventsCommand())
    .addCommand(applyCommand())
    .addCommand(exportCommand());
  // a usage error is an exit code of main's, in every subcommand alike
  const configure = (command: Command): void => {
    command.exitOverride().showHelpAfterError();
    command.commands.forEach(configure);
  };
  configure(root);
  return root;
}

/** Runs the command; a refusal prints the API's message and exits 1 (a usage error 2). */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await program().parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2; // commander printed it
      return;
    }
    process.stderr.write(`orbit: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv.slice(2));
