/**
 * What starting a command costs the process that starts it. Orbit's two launchers are driven
 * alone through their protocol (src/runtime/infrastructure/launcher/PROTOCOL.md), as a worker
 * drives them, beside the floor of native code (spawn-reference.c: posix_spawn, piped as the
 * launcher starts a command), a bare Node process with and without pipes, and the system shell.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LauncherKind } from '../src/config/orbit-config.js';
import { startLauncher } from '../src/runtime/infrastructure/launchers.js';
import { processTimes } from './cpu.js';
import {
  bareNode,
  Bench,
  C8Burst,
  log,
  perSecond,
  ratio,
  ROOT,
  shellSpawn,
  SpawnReference,
  verdict,
} from './support.js';

const execFileAsync = promisify(execFile);

/** The native launcher's own CPU per command, at most this multiple of posix_spawn's from C. */
const NATIVE_TARGET_MULTIPLE = 2;

/** What an answer of the protocol holds that the driver reads. */
interface Answer {
  type: string;
  id: string | null;
  code?: number | null;
  error?: string | null;
}

/**
 * `total` runs of `true` sent to a fresh launcher of this kind, `concurrency` in flight, the next
 * ones sent together when exits come together (as a worker batches a turn's requests), with the
 * request a worker sends (a command's environment, the default timeout, kill grace and output
 * limit). A first round of `concurrency` runs lets the launcher start up before it is measured.
 * Its own CPU per command, and its commands', from /proc.
 */
export async function driveLauncher(
  kind: LauncherKind,
  binary: string,
  total: number,
  concurrency: number,
  cwd: string,
): Promise<SpawnReference> {
  let onAnswers: (answers: Answer[]) => void = () => undefined;
  const channel = startLauncher(kind, (answers) => onAnswers(answers as Answer[]), binary);
  const exited = new Promise<void>((resolve) => channel.process.once('exit', () => resolve()));
  const request = () => {
    const id = randomUUID();
    return {
      type: 'run',
      id,
      command: 'true',
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ORBIT_EXECUTION_ID: id, ORBIT_JOB_ID: id, ORBIT_ATTEMPT: '1' },
      timeoutMs: 60_000,
      killGraceMs: 5_000,
      outputLimitBytes: 64 * 1024,
    };
  };
  const round = (count: number) =>
    new Promise<void>((resolve, reject) => {
      let sent = 0;
      let finished = 0;
      const send = (n: number) => {
        const batch = Array.from({ length: Math.min(n, count - sent) }, request);
        sent += batch.length;
        if (batch.length > 0) channel.send(batch);
      };
      void exited.then(() => reject(new Error(`the ${kind} launcher exited during the run`)));
      onAnswers = (answers) => {
        let exits = 0;
        for (const answer of answers) {
          if (answer.type === 'error' || (answer.type === 'exit' && answer.code !== 0)) {
            reject(new Error(`the ${kind} launcher answered ${JSON.stringify(answer)}`));
            return;
          }
          if (answer.type === 'exit') exits++;
        }
        finished += exits;
        if (finished === count) resolve();
        else send(exits);
      };
      send(concurrency);
    });
  try {
    await round(concurrency);
    const pid = channel.process.pid!;
    const before = processTimes(pid)!;
    const begin = process.hrtime.bigint();
    await round(total);
    const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
    const after = processTimes(pid)!;
    return {
      perSecond: total / seconds,
      cpuMs: { worker: (after.own - before.own) / total, commands: (after.reaped - before.reaped) / total },
    };
  } finally {
    channel.end();
    await exited;
  }
}

/** spawn-reference.c, compiled for this run with the system's C compiler (CC, or cc, as the launcher is). */
async function posixSpawn(bench: Bench, total: number, concurrency: number): Promise<SpawnReference> {
  const binary = join(bench.runDir, 'spawn-reference');
  await execFileAsync(process.env.CC || 'cc', ['-O2', '-o', binary, join(ROOT, 'bench/spawn-reference.c')]);
  const { stdout } = await execFileAsync(binary, [String(total), String(concurrency)]);
  return JSON.parse(stdout) as SpawnReference;
}

/**
 * The starter's own CPU per command: both launchers driven alone, and what they spent in the
 * c8 bursts (`inBurst`, where they also report output and answer a real worker), beside the
 * other starters of the same `/bin/sh -c true`; `bare` is the burst's bare Node, not piped.
 */
export async function reportSpawnCost(
  bench: Bench,
  inBurst: Record<LauncherKind, C8Burst>,
  bare: SpawnReference,
  concurrency: number,
): Promise<void> {
  const { burst } = bench.settings;
  log(`burst: what a start costs its starter, ${burst} × /bin/sh -c true at concurrency ${concurrency}`);
  const native = await driveLauncher('native', bench.launcher, burst, concurrency, bench.workDir);
  const spawner = await driveLauncher('node', bench.launcher, burst, concurrency, bench.workDir);
  const c = await posixSpawn(bench, burst, concurrency);
  const piped = await bareNode(burst, concurrency, true);
  const shell = await shellSpawn(burst, concurrency);
  const share = native.cpuMs.worker / c.cpuMs.worker;
  const launcherInBurst = (kind: LauncherKind) => inBurst[kind].cpuMs.launcher ?? 0;
  bench.report.figure('spawn_cost_c8', {
    concurrency,
    commands: burst,
    driven: {
      nativeLauncher: native,
      nodeSpawner: spawner,
      posixSpawn: c,
      bareNodePiped: piped,
      bareNode: bare,
      shell,
    },
    launcherCpuMsPerExecutionInBurst: { native: launcherInBurst('native'), node: launcherInBurst('node') },
    nativeToPosixSpawn: share,
    target: `<= ${NATIVE_TARGET_MULTIPLE}`,
    met: share <= NATIVE_TARGET_MULTIPLE,
  });
  log(
    `burst: starting a command costs the native launcher ${own(native)}, the Node spawner ${own(spawner)}, ` +
      `posix_spawn from C ${own(c)}, bare Node piped ${own(piped)}, not piped ${own(bare)}, /bin/sh ${own(shell)}`,
  );
  bench.report.add({
    scenario: 'burst',
    measure:
      `… CPU to start a command at concurrency ${concurrency}, the starter's own: ${burst} × /bin/sh -c true ` +
      'sent to it alone through the launcher protocol',
    figure: `native launcher ${own(native)}; Node spawner ${own(spawner)}`,
    target: `≤ ${NATIVE_TARGET_MULTIPLE} × posix_spawn from C, piped as the launcher: ${own(c)}`,
    ratio: ratio(share),
    verdict: verdict(share <= NATIVE_TARGET_MULTIPLE),
  });
  bench.report.add({
    scenario: 'burst',
    measure: `… the launchers' own CPU per execution in the c${concurrency} bursts above; other starters of the same commands`,
    figure:
      `native launcher ${launcherInBurst('native').toFixed(3)} ms, Node spawner ${launcherInBurst('node').toFixed(3)} ms; ` +
      `bare Node piped as the spawner ${own(piped)}, not piped ${own(bare)}; /bin/sh ${own(shell)}`,
    target: "report: what a Node process's fork costs",
    verdict: 'info',
  });
}

const own = (sample: SpawnReference) => `${sample.cpuMs.worker.toFixed(3)} ms (${perSecond(sample.perSecond)})`;
