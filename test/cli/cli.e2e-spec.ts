import { adminCases } from './cases/admin.js';
import { applyCases } from './cases/apply.js';
import { jobsCases } from './cases/jobs.js';
import { runsCases } from './cases/runs.js';
import { teamCases } from './cases/teams.js';
import { harness } from './harness.js';
import { HelpCommand, helpTree, notExercised } from './help-tree.js';
import { ranArgs } from './support.js';

/**
 * The compiled `orbit` as a child process against real Orbits. The cases run in this order (each
 * group leaves what the next finds); the last test checks that together they exercised every
 * command and option `orbit --help` and each command's `--help` list.
 */
describe('the orbit command line, against a real Orbit', () => {
  const h = harness();
  applyCases(h);
  jobsCases(h);
  runsCases(h);
  adminCases(h);
  teamCases(h);

  describe('help', () => {
    let tree: HelpCommand;
    const groups = () => tree.commands.filter((command) => command.commands.length > 0);

    it('every command has its --help, on stdout, exiting 0', async () => {
      tree = await helpTree(
        async (path) => {
          const result = await h.cli([...path, '--help']);
          expect(result).toMatchObject({ code: 0, stderr: '' });
          expect(result.stdout).toMatch(new RegExp(`^Usage: orbit ${path.map((p) => `${p} `).join('')}`));
          return result.stdout;
        },
        // `orbit token …` works on the database, not through the API: its end-to-end tests, with
        // Orbit running and stopped, are test/cli/token-admin.e2e-spec.ts
        (path) => path[0] === 'token',
      );
      expect(tree.commands.map((command) => command.path.join(' '))).toEqual(
        expect.arrayContaining([
          'login',
          'jobs',
          'run',
          'runs',
          'logs',
          'workers',
          'tokens',
          'events',
          'apply',
          'export',
        ]),
      );
    });

    it('help <command> prints what <command> --help does, in every group', async () => {
      for (const group of [tree, ...groups()]) {
        const named = group.commands.filter((c) => c.path[c.path.length - 1] !== 'help');
        await Promise.all(
          named.map(async (command) => {
            const viaHelp = await h.cli([...group.path, 'help', command.path[command.path.length - 1]!]);
            expect(viaHelp).toEqual(await h.cli([...command.path, '--help']));
          }),
        );
      }
    });

    it('a usage error prints the help and exits 2', async () => {
      const result = await h.cli(['jobs', 'frobnicate']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: unknown command 'frobnicate'\n/);
      expect((await h.cli(['apply'])).stderr).toContain(
        "error: required option '-f, --file <orbit.yaml>' not specified",
      );
    });

    it('every command and option the help lists was exercised by a test above', () => {
      expect(notExercised(tree, ranArgs)).toEqual([]);
    });
  });
});
