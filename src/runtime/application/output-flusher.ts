import { ExecutionOutputRepository } from '../../executions/application/execution-output.repository.js';
import { BackgroundLoop, LoopLogger } from '../../shared/application/background-loop.js';
import { Clock } from '../../shared/domain/clock.js';
import type { RunningCommands } from './running-command.js';

const OUTPUT_FLUSH_MS = 1000;

/** Stores what running commands printed since the last flush, in one statement a second. */
export class OutputFlusher {
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly outputs: ExecutionOutputRepository,
    private readonly clock: Clock,
    private readonly running: RunningCommands,
    logger: LoopLogger,
  ) {
    // a failed flush marks its outputs dirty again, for the next one
    this.loop = new BackgroundLoop('Output flush', () => this.flush(), { everyMs: OUTPUT_FLUSH_MS }, logger);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async flush(): Promise<void> {
    const dirty = [...this.running.values()].filter((run) => run.outputDirty && run.output && !run.hasExited);
    if (dirty.length === 0) return;
    for (const run of dirty) run.outputDirty = false;
    const snapshots = dirty.map((run) => ({ executionId: run.execution.id, output: run.output! }));
    await this.outputs.saveAll(snapshots, this.clock.now()).catch(() => {
      for (const run of dirty) run.outputDirty = true;
    });
  }
}
