import { helpTree, notExercised } from './help-tree.js';

/** Help texts as commander prints them, for a small `orbit`. */
const HELP: Record<string, string> = {
  '': `Usage: orbit [options] [command]

Orbit from the shell

Options:
  --json                print the API’s JSON, for scripts
  --url <url>           the Orbit to talk to (default: ORBIT_URL, the login,
                        http://localhost:3000)
  -h, --help            display help for command

Commands:
  jobs                  What to run and when
  logs [options] <run>  What a run printed
  token                 Tokens in the database
  help [command]        display help for command
`,
  jobs: `Usage: orbit jobs [options] [command]

Options:
  -h, --help               display help for command

Commands:
  create [options] [name]  Define a job: the fields of POST /jobs from a file
                           and/or --set
  help [command]           display help for command
`,
  'jobs create': `Usage: orbit jobs create [options] [name]

Options:
  -f, --file <job.yaml>  a YAML or JSON job
  --set <field=value>    a field (repeatable)
  -h, --help             display help for command
`,
  logs: `Usage: orbit logs [options] <run>

Arguments:
  run           the run's id

Options:
  -f, --follow  follow the live output until the run ends
  -h, --help    display help for command
`,
};

describe('the coverage check of the command line', () => {
  const walk = () =>
    helpTree(
      (path) => Promise.resolve(HELP[path.join(' ')]!),
      (path) => path[0] === 'token',
    );

  it('reads the commands and options of every help text, and skips what it is told to', async () => {
    const tree = await walk();
    expect(tree.options).toEqual([
      { flags: ['--json'], takesValue: false },
      { flags: ['--url'], takesValue: true },
      { flags: ['-h', '--help'], takesValue: false },
    ]);
    expect(tree.commands.map((command) => command.path.join(' '))).toEqual(['jobs', 'logs', 'help']);
    expect(tree.commands[0]!.commands[0]!.options[0]).toEqual({ flags: ['-f', '--file'], takesValue: true });
  });

  it('names every command and option no argument list exercised', async () => {
    const tree = await walk();
    expect(
      notExercised(tree, [
        ['jobs', 'create', '--help'],
        ['logs', '--help'],
      ]),
    ).toEqual([
      'orbit --json',
      'orbit --url',
      'orbit --help',
      'orbit jobs --help',
      'orbit jobs create',
      'orbit jobs create --file',
      'orbit jobs create --set',
      'orbit jobs help',
      'orbit logs',
      'orbit logs --follow',
      'orbit help',
    ]);
  });

  it('an option counts where it is given, global ones after the subcommand too; a value is not a command', async () => {
    const tree = await walk();
    const ran = [
      ['--help'],
      ['jobs', '--help'],
      ['jobs', 'create', '--help'],
      ['logs', '--help'],
      ['--url', 'logs', 'jobs', 'create', 'x', '-f', 'job.yaml', '--set=a=b'],
      ['logs', 'abcd', '-f', '--json'],
      ['jobs', 'help', 'create'],
      ['help', 'jobs'],
    ];
    expect(notExercised(tree, ran)).toEqual([]);
    // `--url logs` gave the URL the value "logs": the command was jobs create, and logs ran once
    expect(notExercised(tree, ran.slice(0, 5))).toEqual([
      'orbit --json',
      'orbit jobs help',
      'orbit logs',
      'orbit logs --follow',
      'orbit help',
    ]);
  });
});
