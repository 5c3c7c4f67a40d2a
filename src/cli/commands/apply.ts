import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { contextOf } from '../context.js';
import { orbitFileText, readOrbitFile } from '../orbit-file.js';
import { pc, printJson } from '../output.js';

interface PlanItem {
  section: string;
  name: string;
  action: 'create' | 'update' | 'adopt' | 'unchanged' | 'delete';
  changes: Array<{ field: string; from: unknown; to: unknown }>;
}
interface Plan {
  dryRun: boolean;
  /** The team the file applies to: the one named, else the caller's only team. */
  team: string;
  items: PlanItem[];
}

const MARK = {
  create: pc.green('+ create'),
  update: pc.yellow('~ update'),
  adopt: pc.cyan('~ adopt'),
  unchanged: pc.dim('  unchanged'),
  delete: pc.red('- delete'),
};

const show = (value: unknown) => JSON.stringify(value);

/** The plan as a person reads it: one line per entry, the changed fields under its update. */
function printPlan(plan: Plan): void {
  process.stdout.write(`Team ${plan.team}:\n`);
  for (const item of plan.items) {
    process.stdout.write(`${MARK[item.action]} ${item.section}.${item.name}\n`);
    for (const change of item.changes) {
      process.stdout.write(`      ${change.field}: ${pc.red(show(change.from))} → ${pc.green(show(change.to))}\n`);
    }
  }
  process.stdout.write(`${summary(plan)}\n`);
}

function summary(plan: Plan): string {
  const count = (action: PlanItem['action']) => plan.items.filter((item) => item.action === action).length;
  const adopt = count('adopt') > 0 ? `, ${count('adopt')} to adopt` : '';
  return `${count('create')} to create, ${count('update')} to update${adopt}, ${count('delete')} to delete, ${count('unchanged')} unchanged`;
}

const changes = (plan: Plan) => plan.items.some((item) => item.action !== 'unchanged');

export function applyCommand(): Command {
  return new Command('apply')
    .description('Make Orbit match an orbit file (one transaction: all of it or none of it)')
    .requiredOption('-f, --file <orbit.yaml>', 'the file, - for stdin')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--prune', "also delete the team's jobs an earlier apply created that the file no longer names")
    .option('--team <name>', "the team the file is for (default: your only team; an admin's: default)")
    .action(async (options: { file: string; dryRun?: boolean; prune?: boolean; team?: string }, command: Command) => {
      const { api, json } = contextOf(command);
      const file = readOrbitFile(options.file);
      const request = (dryRun: boolean) =>
        api.post<Plan>('/apply', { file, dryRun, prune: options.prune ?? false, team: options.team });
      const plan = await request(true);
      if (options.dryRun || !changes(plan)) {
        if (json) return printJson(plan);
        printPlan(plan);
        process.stdout.write(
          options.dryRun ? 'Dry run: nothing was changed.\n' : 'Orbit already matches the file: nothing to change.\n',
        );
        return;
      }
      if (!json) printPlan(plan);
      // the server plans again inside the apply's transaction: what it answers is what was done
      const applied = await request(false);
      if (json) printJson(applied);
      else process.stdout.write(`Applied: ${summary(applied)}\n`);
    });
}

export function exportCommand(): Command {
  return new Command('export')
    .description(
      'Write the channels and jobs of the teams you administer as an orbit file (secrets as ${ORBIT_CHANNEL_…} placeholders)',
    )
    .option('-o, --output <orbit.yaml>', 'write here instead of stdout')
    .option('--team <name>', "only this team's: the file to apply with the same --team")
    .action(async (options: { output?: string; team?: string }, command: Command) => {
      const { api, json } = contextOf(command);
      const file = await api.get<unknown>('/orbit-file', { team: options.team });
      const text = json ? `${JSON.stringify(file, null, 2)}\n` : orbitFileText(file, api.url);
      if (options.output) writeFileSync(options.output, text);
      else process.stdout.write(text);
    });
}
