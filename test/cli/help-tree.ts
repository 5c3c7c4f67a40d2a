/** An option as `--help` lists it: its flags, and whether it takes a value. */
export interface HelpOption {
  flags: string[];
  takesValue: boolean;
}

/** A command as its `--help` lists it: its options and its subcommands. */
export interface HelpCommand {
  path: string[];
  options: HelpOption[];
  commands: HelpCommand[];
}

/** The entries (term, then description) of one section (`Options:`, `Commands:`) of a help text. */
function section(help: string, title: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(`${title}:`);
  if (start < 0) return [];
  const terms: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break; // the blank line before the next section
    if (line.startsWith('   ')) continue; // a description wrapped onto the next line
    terms.push(line.trim().split(/\s{2,}/)[0]!);
  }
  return terms;
}

/** `-o, --output <orbit.yaml>` → flags `-o`, `--output`, taking a value. */
function optionOf(term: string): HelpOption {
  const takesValue = /[<[]/.test(term);
  const flags = term
    .split(/[ ,]+/)
    .filter((word) => word.startsWith('-'))
    .map((flag) => flag.replace(/=.*/, ''));
  return { flags, takesValue };
}

/**
 * The command tree as `orbit --help` and each command's `--help` list it, walked with `help`
 * (which runs `orbit <path> --help`). `skip` names commands not to walk into.
 */
export async function helpTree(
  help: (path: string[]) => Promise<string>,
  skip: (path: string[]) => boolean,
  path: string[] = [],
): Promise<HelpCommand> {
  const text = await help(path);
  const names = section(text, 'Commands').map((term) => term.split(' ')[0]!);
  const commands: HelpCommand[] = [];
  for (const name of names) {
    const sub = [...path, name];
    if (skip(sub)) continue;
    commands.push(name === 'help' ? { path: sub, options: [], commands: [] } : await helpTree(help, skip, sub));
  }
  return { path, options: section(text, 'Options').map(optionOf), commands };
}

/** `jobs create --set`, as a coverage report names it. */
const named = (path: string[], flag?: string) => ['orbit', ...path, ...(flag ? [flag] : [])].join(' ');

/**
 * What an argument list exercises: the command it runs and the options it gives, each option
 * found in that command or an ancestor (global options may follow the subcommand). An argument
 * list that asks for help exercises only its `--help`.
 */
function exercised(tree: HelpCommand, args: readonly string[]): string[] {
  const chain = [tree];
  const used: string[] = [];
  let positional = false;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === '--') break;
    const command = chain[chain.length - 1]!;
    if (arg.startsWith('-')) {
      const flag = arg.replace(/=.*/, '');
      const owner = [...chain].reverse().find((c) => c.options.some((o) => o.flags.includes(flag)));
      const option = owner?.options.find((o) => o.flags.includes(flag));
      if (!owner || !option) continue;
      used.push(named(owner.path, option.flags[option.flags.length - 1]));
      if (option.takesValue && !arg.includes('=')) at++;
      continue;
    }
    const sub = positional ? undefined : command.commands.find((c) => c.path[c.path.length - 1] === arg);
    if (sub) chain.push(sub);
    else positional = true;
  }
  const helped = used.some((flag) => flag.endsWith(' --help'));
  return helped ? used.filter((flag) => flag.endsWith(' --help')) : [named(chain[chain.length - 1]!.path), ...used];
}

/**
 * The commands and options of the tree that none of the argument lists exercises: a command
 * group counts as exercised by its subcommands.
 */
export function notExercised(tree: HelpCommand, ran: readonly (readonly string[])[]): string[] {
  const done = new Set(ran.flatMap((args) => exercised(tree, args)));
  const missing: string[] = [];
  const visit = (command: HelpCommand) => {
    if (command.path.length > 0 && command.commands.length === 0 && !done.has(named(command.path))) {
      missing.push(named(command.path));
    }
    for (const option of command.options) {
      const flag = named(command.path, option.flags[option.flags.length - 1]);
      if (!done.has(flag)) missing.push(flag);
    }
    command.commands.forEach(visit);
  };
  visit(tree);
  return missing;
}
