import fc from 'fast-check';
import { IllegalTransitionError, InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { Execution } from './execution.js';

/*
 * An independent model of the seed's diagram, written without looking at TRANSITIONS:
 *
 *   QUEUED ─start─→ RUNNING ─succeed─→ SUCCEEDED
 *      │               ├─────fail────→ FAILED
 *      │               └────cancel───→ CANCELLED
 *      └─────────cancel──────────────→ CANCELLED
 */
type Status = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

type Action =
  | { kind: 'start'; workerId: string | null }
  | { kind: 'succeed'; exitCode: number }
  | { kind: 'fail'; exitCode: number; errorMessage: string }
  | { kind: 'cancel' };

interface Step {
  action: Action;
  /** Milliseconds since the previous step; always positive, so time only moves forward. */
  advanceMs: number;
}

interface Observed {
  status: Status;
  startedAt: number | null;
  finishedAt: number | null;
  exitCode: number | null;
  errorMessage: string | null;
  workerId: string | null;
}

type Outcome = { ok: true } | { ok: false; error: 'IllegalTransition' | 'InvalidArgument'; messages: string[] };

const FINAL: Status[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
const isInt32 = (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1;
const isBlank = (s: string) => s.trim() === '';
const EXIT_CODE_REFUSAL = 'exitCode must be a 32-bit integer';
const BLANK_MESSAGE_REFUSAL = 'Error message must not be blank';

/** Applies `action` at `at` to the model; returns what the entity is expected to do. */
function model(state: Observed, action: Action, at: number): { next: Observed; outcome: Outcome } {
  const illegal = (message: string) => ({
    next: state,
    outcome: { ok: false, error: 'IllegalTransition', messages: [message] } as Outcome,
  });
  const invalid = (messages: string[]) => ({
    next: state,
    outcome: { ok: false, error: 'InvalidArgument', messages } as Outcome,
  });
  const ok = (next: Observed) => ({ next, outcome: { ok: true } as Outcome });

  switch (action.kind) {
    case 'start':
      if (state.status !== 'QUEUED') return illegal('Only queued executions can be started');
      return ok({ ...state, status: 'RUNNING', startedAt: at, workerId: action.workerId });
    case 'succeed':
      if (state.status !== 'RUNNING') return illegal('Only running executions can succeed');
      if (!isInt32(action.exitCode)) return invalid([EXIT_CODE_REFUSAL]);
      return ok({ ...state, status: 'SUCCEEDED', exitCode: action.exitCode, finishedAt: at });
    case 'fail': {
      if (state.status !== 'RUNNING') return illegal('Only running executions can fail');
      // The seed fixes the state check first; which of two bad arguments is named first is not a rule.
      const problems = [
        ...(isInt32(action.exitCode) ? [] : [EXIT_CODE_REFUSAL]),
        ...(isBlank(action.errorMessage) ? [BLANK_MESSAGE_REFUSAL] : []),
      ];
      if (problems.length > 0) return invalid(problems);
      return ok({
        ...state,
        status: 'FAILED',
        exitCode: action.exitCode,
        errorMessage: action.errorMessage,
        finishedAt: at,
      });
    }
    case 'cancel':
      if (state.status !== 'QUEUED' && state.status !== 'RUNNING') {
        return illegal('Only queued or running executions can be cancelled');
      }
      return ok({ ...state, status: 'CANCELLED', finishedAt: at });
  }
}

function observe(execution: Execution): Observed {
  return {
    status: execution.status,
    startedAt: execution.startedAt?.getTime() ?? null,
    finishedAt: execution.finishedAt?.getTime() ?? null,
    exitCode: execution.exitCode,
    errorMessage: execution.errorMessage,
    workerId: execution.workerId,
  };
}

function apply(execution: Execution, action: Action, at: Date): void {
  switch (action.kind) {
    case 'start':
      return action.workerId === null ? execution.start(at) : execution.start(at, action.workerId);
    case 'succeed':
      return execution.succeed(action.exitCode, at);
    case 'fail':
      return execution.fail(action.exitCode, action.errorMessage, at);
    case 'cancel':
      return execution.cancel(at, { by: 'caller', actor: 'property' });
  }
}

const exitCode = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
  { weight: 4, arbitrary: fc.constantFrom(0, 1, -1, 2, 127, 255) },
  { weight: 1, arbitrary: fc.constantFrom(0.5, -1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31) },
);
const errorMessage = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1 }).filter((s) => !isBlank(s)) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '   ', '\t', '\n', ' \r\n\t ') },
);
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('start' as const), workerId: fc.option(fc.string({ minLength: 1, maxLength: 20 })) }),
  fc.record({ kind: fc.constant('succeed' as const), exitCode }),
  fc.record({ kind: fc.constant('fail' as const), exitCode, errorMessage }),
  fc.record({ kind: fc.constant('cancel' as const) }),
);
const history = fc.array(fc.record({ action, advanceMs: fc.integer({ min: 1, max: 86_400_000 }) }), { maxLength: 12 });

describe('Execution against a reference model of the seed diagram', () => {
  it('every random history of actions behaves as the model says: status, refusals, timestamps', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        history,
        (createdAt, steps: Step[]) => {
          const execution = Execution.create(
            { jobId: 'job-1', command: 'echo model', maxRetries: 1, timeoutSeconds: 60, maxDurationSeconds: null },
            createdAt,
          );
          let expected: Observed = {
            status: 'QUEUED',
            startedAt: null,
            finishedAt: null,
            exitCode: null,
            errorMessage: null,
            workerId: null,
          };
          let finalSnapshot: Observed | null = null;
          let now = createdAt.getTime();

          expect(observe(execution)).toEqual(expected);
          for (const { action, advanceMs } of steps) {
            now += advanceMs;
            const { next, outcome } = model(expected, action, now);

            let thrown: unknown = null;
            try {
              apply(execution, action, new Date(now));
            } catch (error) {
              thrown = error;
            }

            if (outcome.ok) {
              expect(thrown).toBeNull();
            } else {
              expect(thrown).toBeInstanceOf(
                outcome.error === 'IllegalTransition' ? IllegalTransitionError : InvalidArgumentError,
              );
              expect(outcome.messages).toContain((thrown as Error).message);
            }
            expected = next;
            expect(observe(execution)).toEqual(expected);

            // Once final, nothing ever changes again.
            if (finalSnapshot) expect(observe(execution)).toEqual(finalSnapshot);
            if (FINAL.includes(execution.status)) finalSnapshot ??= observe(execution);

            // Timestamps tell the story: finishedAt exactly when final, never before startedAt.
            expect(execution.finishedAt !== null).toBe(FINAL.includes(execution.status as Status));
            if (execution.startedAt && execution.finishedAt) {
              expect(execution.finishedAt.getTime()).toBeGreaterThan(execution.startedAt.getTime());
            }
            // The copied configuration never moves.
            expect(execution.snapshot()).toEqual({
              jobId: 'job-1',
              command: 'echo model',
              maxRetries: 1,
              timeoutSeconds: 60,
              maxDurationSeconds: null,
              workerSelector: {},
              maxConcurrent: null,
              concurrencyGroup: null,
              priority: 0,
            });
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('every reachable history ends in a state the diagram can reach, and only through its arrows', () => {
    const arrows = new Set([
      'QUEUED->RUNNING',
      'RUNNING->SUCCEEDED',
      'RUNNING->FAILED',
      'RUNNING->CANCELLED',
      'QUEUED->CANCELLED',
    ]);
    fc.assert(
      fc.property(history, (steps) => {
        const execution = Execution.create(
          { jobId: 'job-1', command: 'echo model', maxRetries: 0, timeoutSeconds: 60, maxDurationSeconds: null },
          new Date('2026-01-01T00:00:00Z'),
        );
        let now = Date.parse('2026-01-01T00:00:00Z');
        for (const { action, advanceMs } of steps) {
          now += advanceMs;
          const before = execution.status;
          try {
            apply(execution, action, new Date(now));
          } catch {
            expect(execution.status).toBe(before);
            continue;
          }
          expect(arrows).toContain(`${before}->${execution.status}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});
