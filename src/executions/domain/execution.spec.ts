import { ConflictError, IllegalTransitionError, InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { CancelledBy, Execution, ExecutionProps, JobSnapshot } from './execution.js';
import {
  allowedEdges,
  EXECUTION_STATUSES,
  ExecutionAction,
  ExecutionStatus,
  isFinal,
  TRANSITIONS,
} from './execution-status.js';

const { QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED } = ExecutionStatus;

const CREATED_AT = new Date('2026-05-04T10:00:00.000Z');
const STARTED_AT = new Date('2026-05-04T10:00:05.000Z');
const FINISHED_AT = new Date('2026-05-04T10:01:00.000Z');
const ACTION_AT = new Date('2026-05-04T10:02:00.000Z');
const BY_CALLER: CancelledBy = { by: 'caller', actor: 'ops-alice' };

// The refusals, word for word from the seed write-up.
const NOT_QUEUED = 'Only queued executions can be started';
const CANNOT_SUCCEED = 'Only running executions can succeed';
const CANNOT_FAIL = 'Only running executions can fail';
const CANNOT_CANCEL = 'Only queued or running executions can be cancelled';

function jobSnapshot(overrides: Partial<JobSnapshot> = {}): JobSnapshot {
  return {
    jobId: '7d0f6f3e-6a3e-4c39-9a8e-0c6f1b2a9d11',
    command: 'pg_dump orbit > /backups/orbit.sql',
    maxRetries: 2,
    timeoutSeconds: 600,
    workerSelector: {},
    maxConcurrent: null,
    concurrencyGroup: null,
    priority: 0,
    maxDurationSeconds: null,
    ...overrides,
  };
}

/** A fresh execution driven to `state` through its action methods only. */
function executionIn(state: ExecutionStatus, snapshot: JobSnapshot = jobSnapshot()): Execution {
  const execution = Execution.create(snapshot, CREATED_AT);
  switch (state) {
    case QUEUED:
      break;
    case RUNNING:
      execution.start(STARTED_AT, 'worker-1');
      break;
    case SUCCEEDED:
      execution.start(STARTED_AT, 'worker-1');
      execution.succeed(0, FINISHED_AT);
      break;
    case FAILED:
      execution.start(STARTED_AT, 'worker-1');
      execution.fail(1, 'Backup command failed', FINISHED_AT);
      break;
    case CANCELLED:
      execution.cancel(FINISHED_AT, BY_CALLER);
      break;
  }
  expect(execution.status).toBe(state);
  return execution;
}

const ACTIONS: Record<ExecutionAction, (execution: Execution) => void> = {
  start: (execution) => execution.start(ACTION_AT, 'worker-7'),
  succeed: (execution) => execution.succeed(3, ACTION_AT),
  fail: (execution) => execution.fail(2, 'disk full', ACTION_AT),
  cancel: (execution) => execution.cancel(ACTION_AT, BY_CALLER),
};

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

function expectRefusal(action: () => unknown, type: new (message: string) => Error, message: string): void {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toBe(message);
}

interface LegalCase {
  action: ExecutionAction;
  state: ExecutionStatus;
  to: ExecutionStatus;
  /** The fields the action changes; every other field must stay as it was. */
  changes: Partial<ExecutionProps>;
}

interface ForbiddenCase {
  action: ExecutionAction;
  state: ExecutionStatus;
  message: string;
}

// Written from the seed's diagram, not from TRANSITIONS, so the two can be checked against each other.
const LEGAL: LegalCase[] = [
  {
    action: 'start',
    state: QUEUED,
    to: RUNNING,
    changes: { status: RUNNING, startedAt: ACTION_AT, workerId: 'worker-7' },
  },
  {
    action: 'cancel',
    state: QUEUED,
    to: CANCELLED,
    changes: { status: CANCELLED, finishedAt: ACTION_AT, cancelledBy: BY_CALLER },
  },
  {
    action: 'succeed',
    state: RUNNING,
    to: SUCCEEDED,
    changes: { status: SUCCEEDED, exitCode: 3, finishedAt: ACTION_AT },
  },
  {
    action: 'fail',
    state: RUNNING,
    to: FAILED,
    changes: { status: FAILED, exitCode: 2, errorMessage: 'disk full', finishedAt: ACTION_AT },
  },
  {
    action: 'cancel',
    state: RUNNING,
    to: CANCELLED,
    changes: { status: CANCELLED, finishedAt: ACTION_AT, cancelledBy: BY_CALLER },
  },
];

const FORBIDDEN: ForbiddenCase[] = [
  { action: 'start', state: RUNNING, message: NOT_QUEUED },
  { action: 'start', state: SUCCEEDED, message: NOT_QUEUED },
  { action: 'start', state: FAILED, message: NOT_QUEUED },
  { action: 'start', state: CANCELLED, message: NOT_QUEUED },
  { action: 'succeed', state: QUEUED, message: CANNOT_SUCCEED },
  { action: 'succeed', state: SUCCEEDED, message: CANNOT_SUCCEED },
  { action: 'succeed', state: FAILED, message: CANNOT_SUCCEED },
  { action: 'succeed', state: CANCELLED, message: CANNOT_SUCCEED },
  { action: 'fail', state: QUEUED, message: CANNOT_FAIL },
  { action: 'fail', state: SUCCEEDED, message: CANNOT_FAIL },
  { action: 'fail', state: FAILED, message: CANNOT_FAIL },
  { action: 'fail', state: CANCELLED, message: CANNOT_FAIL },
  { action: 'cancel', state: SUCCEEDED, message: CANNOT_CANCEL },
  { action: 'cancel', state: FAILED, message: CANNOT_CANCEL },
  { action: 'cancel', state: CANCELLED, message: CANNOT_CANCEL },
];

const named = <T extends { state: ExecutionStatus }>(cases: T[]) =>
  cases.map((c) => ({ ...c, when: c.state.toLowerCase() }));

describe('Execution lifecycle', () => {
  it('the legal and forbidden tables together cover every (state, action) pair exactly once', () => {
    const pairs = [...LEGAL, ...FORBIDDEN].map((c) => `${c.state}:${c.action}`);
    const expected = EXECUTION_STATUSES.flatMap((state) =>
      (Object.keys(ACTIONS) as ExecutionAction[]).map((action) => `${state}:${action}`),
    );
    expect(new Set(pairs).size).toBe(pairs.length);
    expect([...pairs].sort()).toEqual([...expected].sort());
    expect(pairs).toHaveLength(20);
  });

  it.each(named(LEGAL))('$action when $when is allowed and leads to $to', ({ action, state, changes }) => {
    const execution = executionIn(state);
    const before = execution.toProps();

    ACTIONS[action](execution);

    expect(execution.toProps()).toEqual({ ...before, ...changes });
  });

  it.each(named(FORBIDDEN))("$action when $when is rejected with '$message'", ({ action, state, message }) => {
    const execution = executionIn(state);
    const before = execution.toProps();

    const error = thrownBy(() => ACTIONS[action](execution));

    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as Error).message).toBe(message);
    expect(execution.toProps()).toEqual(before);
  });

  describe('create', () => {
    it('a new execution is queued, first attempt, manual, due now, with nothing recorded yet', () => {
      const execution = Execution.create(jobSnapshot(), CREATED_AT);

      expect(execution.toProps()).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        ...jobSnapshot(),
        status: QUEUED,
        attempt: 1,
        trigger: 'MANUAL',
        scheduledFor: null,
        retryOf: null,
        dueAt: CREATED_AT,
        createdAt: CREATED_AT,
        startedAt: null,
        finishedAt: null,
        exitCode: null,
        errorMessage: null,
        workerId: null,
        version: 1,
        failureCause: null,
        pinnedWorker: null,
        waitingFor: null,
        parameters: {},
        triggeredBy: null,
        upstreamStatus: null,
        cancelledBy: null,
      });
    });

    it('a scheduled execution records its slot and due time', () => {
      const slot = new Date('2026-05-04T10:00:00.000Z');
      const execution = Execution.create(jobSnapshot(), CREATED_AT, {
        trigger: 'SCHEDULE',
        scheduledFor: slot,
        dueAt: slot,
      });

      expect(execution.trigger).toBe('SCHEDULE');
      expect(execution.toProps().scheduledFor).toEqual(slot);
      expect(execution.dueAt).toEqual(slot);
    });

    it('every execution gets its own id', () => {
      expect(Execution.create(jobSnapshot(), CREATED_AT).id).not.toBe(Execution.create(jobSnapshot(), CREATED_AT).id);
    });
  });

  describe('the snapshot rule', () => {
    it('create copies jobId, command, maxRetries and timeoutSeconds from the snapshot', () => {
      const execution = Execution.create(
        jobSnapshot({ command: 'echo snapshot', maxRetries: 5, timeoutSeconds: 42 }),
        CREATED_AT,
      );

      expect(execution.jobId).toBe(jobSnapshot().jobId);
      expect(execution.command).toBe('echo snapshot');
      expect(execution.maxRetries).toBe(5);
      expect(execution.timeoutSeconds).toBe(42);
      expect(execution.snapshot()).toEqual(
        jobSnapshot({ command: 'echo snapshot', maxRetries: 5, timeoutSeconds: 42 }),
      );
    });

    it('editing the source after create does not change the execution', () => {
      const source = jobSnapshot({ command: 'echo before', maxRetries: 1, timeoutSeconds: 60 });
      const execution = Execution.create(source, CREATED_AT);

      source.command = 'rm -rf /tmp/after';
      source.maxRetries = 9;
      source.timeoutSeconds = 9999;
      source.jobId = 'another-job';

      expect(execution.snapshot()).toEqual(jobSnapshot({ command: 'echo before', maxRetries: 1, timeoutSeconds: 60 }));
    });

    it('editing a returned snapshot or props object does not change the execution', () => {
      const execution = executionIn(RUNNING);

      const snapshot = execution.snapshot();
      snapshot.command = 'changed';
      const props = execution.toProps();
      props.status = SUCCEEDED;
      props.command = 'changed';

      expect(execution.command).toBe(jobSnapshot().command);
      expect(execution.status).toBe(RUNNING);
    });

    it('the copied configuration survives the whole lifecycle', () => {
      const execution = executionIn(FAILED);

      expect(execution.snapshot()).toEqual(jobSnapshot());
    });
  });

  describe('start', () => {
    it('start when queued records startedAt and the worker, and nothing else', () => {
      const execution = executionIn(QUEUED);

      execution.start(ACTION_AT, 'worker-42');

      expect(execution.status).toBe(RUNNING);
      expect(execution.startedAt).toEqual(ACTION_AT);
      expect(execution.workerId).toBe('worker-42');
      expect(execution.finishedAt).toBeNull();
      expect(execution.exitCode).toBeNull();
      expect(execution.errorMessage).toBeNull();
    });

    it('start without a worker (an outside runner) leaves workerId null', () => {
      const execution = executionIn(QUEUED);

      execution.start(ACTION_AT);

      expect(execution.status).toBe(RUNNING);
      expect(execution.workerId).toBeNull();
    });

    it('start twice is rejected the second time', () => {
      const execution = executionIn(QUEUED);
      execution.start(STARTED_AT, 'worker-1');

      expectRefusal(() => execution.start(ACTION_AT, 'worker-2'), IllegalTransitionError, NOT_QUEUED);
      expect(execution.startedAt).toEqual(STARTED_AT);
      expect(execution.workerId).toBe('worker-1');
    });
  });

  describe('succeed', () => {
    it('succeed before start is rejected', () => {
      const execution = executionIn(QUEUED);

      expectRefusal(() => execution.succeed(0, ACTION_AT), IllegalTransitionError, CANNOT_SUCCEED);
      expect(execution.status).toBe(QUEUED);
    });

    it.each([0, 1, 2, 127, 255, -1, -15, 2_147_483_647, -2_147_483_648])(
      'succeed accepts the integer exit code %p',
      (exitCode) => {
        const execution = executionIn(RUNNING);

        execution.succeed(exitCode, ACTION_AT);

        expect(execution.status).toBe(SUCCEEDED);
        expect(execution.exitCode).toBe(exitCode);
        expect(execution.finishedAt).toEqual(ACTION_AT);
        expect(execution.startedAt).toEqual(STARTED_AT);
        expect(execution.errorMessage).toBeNull();
      },
    );

    it.each([1.5, -0.25, Number.NaN, Number.POSITIVE_INFINITY, 2_147_483_648, -2_147_483_649])(
      'succeed with the non-integer or out-of-range exit code %p is refused and changes nothing',
      (exitCode) => {
        const execution = executionIn(RUNNING);
        const before = execution.toProps();

        const error = thrownBy(() => execution.succeed(exitCode, ACTION_AT));

        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field).toBe('exitCode');
        expect(execution.toProps()).toEqual(before);
      },
    );

    it('succeed with a bad exit code when not running reports the state first', () => {
      const execution = executionIn(QUEUED);

      expectRefusal(() => execution.succeed(1.5, ACTION_AT), IllegalTransitionError, CANNOT_SUCCEED);
    });
  });

  describe('fail', () => {
    it('fail when running records exit code, error message and finishedAt', () => {
      const execution = executionIn(RUNNING);

      execution.fail(1, 'Backup command failed', ACTION_AT);

      expect(execution.status).toBe(FAILED);
      expect(execution.exitCode).toBe(1);
      expect(execution.errorMessage).toBe('Backup command failed');
      expect(execution.finishedAt).toEqual(ACTION_AT);
      expect(execution.startedAt).toEqual(STARTED_AT);
    });

    it.each([0, -9, 137])('fail accepts the exit code %p, zero included', (exitCode) => {
      const execution = executionIn(RUNNING);

      execution.fail(exitCode, 'killed', ACTION_AT);

      expect(execution.status).toBe(FAILED);
      expect(execution.exitCode).toBe(exitCode);
    });

    it.each([
      { label: 'an empty message', message: '' },
      { label: 'a message of spaces', message: '   ' },
      { label: 'a message of tabs and newlines', message: '\t\n \r' },
      { label: 'no message (undefined)', message: undefined },
      { label: 'no message (null)', message: null },
    ])('fail with $label is refused and changes nothing', ({ message }) => {
      const execution = executionIn(RUNNING);
      const before = execution.toProps();

      const error = thrownBy(() => execution.fail(1, message as unknown as string, ACTION_AT));

      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toBe('Error message must not be blank');
      expect((error as InvalidArgumentError).field).toBe('errorMessage');
      expect(execution.toProps()).toEqual(before);
    });

    it.each(named([QUEUED, SUCCEEDED, FAILED, CANCELLED].map((state) => ({ state }))))(
      'fail with a blank message when $when is rejected for the state first',
      ({ state }) => {
        const execution = executionIn(state);

        const error = thrownBy(() => execution.fail(1, '  ', ACTION_AT));

        expect(error).toBeInstanceOf(IllegalTransitionError);
        expect((error as Error).message).toBe(CANNOT_FAIL);
      },
    );

    it('fail with a non-integer exit code is refused and changes nothing', () => {
      const execution = executionIn(RUNNING);
      const before = execution.toProps();

      const error = thrownBy(() => execution.fail(0.5, 'half a failure', ACTION_AT));

      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).field).toBe('exitCode');
      expect(execution.toProps()).toEqual(before);
    });

    it('a refused fail can be followed by a valid one', () => {
      const execution = executionIn(RUNNING);
      expect(() => execution.fail(1, '', ACTION_AT)).toThrow(InvalidArgumentError);

      execution.fail(1, 'real reason', ACTION_AT);

      expect(execution.status).toBe(FAILED);
      expect(execution.errorMessage).toBe('real reason');
    });
  });

  describe('cancel', () => {
    it('cancel when queued sets finishedAt and leaves startedAt null: it never started', () => {
      const execution = executionIn(QUEUED);

      execution.cancel(ACTION_AT, BY_CALLER);

      expect(execution.status).toBe(CANCELLED);
      expect(execution.finishedAt).toEqual(ACTION_AT);
      expect(execution.startedAt).toBeNull();
      expect(execution.workerId).toBeNull();
      expect(execution.exitCode).toBeNull();
      expect(execution.cancelledBy).toEqual(BY_CALLER);
    });

    it.each<CancelledBy>([
      { by: 'job_deletion', actor: 'ops-bob' },
      { by: 'scheduler', actor: null },
    ])('cancel keeps who cancelled: $by', (by) => {
      const execution = executionIn(RUNNING);
      expect(execution.cancelledBy).toBeNull();

      execution.cancel(ACTION_AT, by);

      expect(execution.cancelledBy).toEqual(by);
    });

    it('cancel when running keeps startedAt and sets finishedAt', () => {
      const execution = executionIn(RUNNING);

      execution.cancel(ACTION_AT, BY_CALLER);

      expect(execution.status).toBe(CANCELLED);
      expect(execution.startedAt).toEqual(STARTED_AT);
      expect(execution.finishedAt).toEqual(ACTION_AT);
      expect(execution.exitCode).toBeNull();
    });

    it('cancel when succeeded is rejected', () => {
      const execution = executionIn(SUCCEEDED);

      expectRefusal(() => execution.cancel(ACTION_AT, BY_CALLER), IllegalTransitionError, CANNOT_CANCEL);
      expect(execution.finishedAt).toEqual(FINISHED_AT);
      expect(execution.cancelledBy).toBeNull();
    });

    it('a cancelled-while-running execution cannot be cancelled again', () => {
      const execution = executionIn(RUNNING);
      execution.cancel(FINISHED_AT, BY_CALLER);

      expectRefusal(() => execution.cancel(ACTION_AT, BY_CALLER), IllegalTransitionError, CANNOT_CANCEL);
      expect(execution.finishedAt).toEqual(FINISHED_AT);
    });
  });

  describe('retry', () => {
    it('a retry keeps the placement and the pin; a pinned run whose worker was lost is not retried', () => {
      const AT = new Date('2026-11-30T10:00:00.000Z');
      const placed = jobSnapshot({ workerSelector: { region: 'eu' }, concurrencyGroup: 'db', priority: 9 });
      const pinned = Execution.create(placed, AT, { pinnedWorker: 'host-a:1:aa' });
      pinned.start(AT, 'host-a:1:aa');
      pinned.fail(1, 'Command exited with code 1', AT);
      const next = pinned.retry(AT, 10);
      expect(next.toProps()).toMatchObject({ ...placed, pinnedWorker: 'host-a:1:aa', attempt: 2 });

      const lost = Execution.create(placed, AT, { pinnedWorker: 'host-a:1:aa' });
      lost.start(AT, 'host-a:1:aa');
      lost.fail(-1, 'Worker lost: lease expired', AT, 'worker_lost');
      expect(lost.retryable).toBe(false);
      const unpinned = Execution.create(placed, AT);
      unpinned.start(AT, 'host-a:1:aa');
      unpinned.fail(-1, 'Worker lost: lease expired', AT, 'worker_lost');
      expect(unpinned.retryable).toBe(true);
    });

    const RETRY_AT = new Date('2026-05-04T10:05:00.000Z');
    const NOT_RETRYABLE = 'Only failed executions with retries left can be retried';

    it('a failed first attempt with retries left is retryable', () => {
      expect(executionIn(FAILED, jobSnapshot({ maxRetries: 1 })).retryable).toBe(true);
    });

    it('retry of a failed execution queues the next attempt with the same copied configuration', () => {
      const failed = executionIn(FAILED);
      const before = failed.toProps();

      const retry = failed.retry(RETRY_AT, 30_000);

      expect(retry.toProps()).toEqual({
        id: expect.any(String),
        ...jobSnapshot(),
        status: QUEUED,
        attempt: 2,
        trigger: 'RETRY',
        scheduledFor: null,
        retryOf: failed.id,
        dueAt: new Date(RETRY_AT.getTime() + 30_000),
        createdAt: RETRY_AT,
        startedAt: null,
        finishedAt: null,
        exitCode: null,
        errorMessage: null,
        workerId: null,
        version: 1,
        failureCause: null,
        pinnedWorker: null,
        waitingFor: null,
        parameters: {},
        triggeredBy: null,
        upstreamStatus: null,
        cancelledBy: null,
      });
      expect(retry.id).not.toBe(failed.id);
      expect(failed.toProps()).toEqual(before);
    });

    it('retries are allowed while attempt <= maxRetries, then stop', () => {
      const first = executionIn(FAILED, jobSnapshot({ maxRetries: 2 }));
      const second = first.retry(RETRY_AT, 0);
      second.start(RETRY_AT, 'worker-2');
      second.fail(1, 'again', RETRY_AT);
      expect(second.attempt).toBe(2);
      expect(second.retryable).toBe(true);

      const third = second.retry(RETRY_AT, 0);
      expect(third.attempt).toBe(3);
      expect(third.toProps().retryOf).toBe(second.id);
      third.start(RETRY_AT, 'worker-3');
      third.fail(1, 'and again', RETRY_AT);

      expect(third.retryable).toBe(false);
      expectRefusal(() => third.retry(RETRY_AT, 0), IllegalTransitionError, NOT_RETRYABLE);
    });

    it('a failed execution of a job with maxRetries 0 is not retryable', () => {
      const failed = executionIn(FAILED, jobSnapshot({ maxRetries: 0 }));

      expect(failed.retryable).toBe(false);
      expectRefusal(() => failed.retry(RETRY_AT, 0), IllegalTransitionError, NOT_RETRYABLE);
    });

    it.each(named([QUEUED, RUNNING, SUCCEEDED, CANCELLED].map((state) => ({ state }))))(
      'retry when $when is rejected',
      ({ state }) => {
        const execution = executionIn(state, jobSnapshot({ maxRetries: 5 }));

        expect(execution.retryable).toBe(false);
        expectRefusal(() => execution.retry(RETRY_AT, 0), IllegalTransitionError, NOT_RETRYABLE);
      },
    );
  });
});

describe('an outside runner (the API) may not report on a run a worker holds', () => {
  it.each(['succeed', 'fail'] as const)(
    '%s on a run a worker is executing is a conflict naming the worker',
    (action) => {
      const execution = executionIn(RUNNING);

      expectRefusal(
        () => execution.requireOutsideRunnerMay(action),
        ConflictError,
        `Execution ${execution.id} is being run by worker worker-1: only that worker reports how it ends (cancel it to stop it)`,
      );
      expect(execution.status).toBe(RUNNING);
    },
  );

  it.each(['succeed', 'fail'] as const)('%s on a run an outside runner started is allowed', (action) => {
    const execution = executionIn(QUEUED);
    execution.start(STARTED_AT);

    execution.requireOutsideRunnerMay(action);
    ACTIONS[action](execution);
    expect(execution.status).toBe(TRANSITIONS[action].to);
  });

  it.each(FORBIDDEN.filter((c) => c.action !== 'cancel'))(
    "$action when $state keeps the lifecycle's exact refusal, worker or not",
    ({ action, state, message }) => {
      expectRefusal(() => executionIn(state).requireOutsideRunnerMay(action), IllegalTransitionError, message);
    },
  );

  it('start on a queued run is allowed', () => {
    expect(() => executionIn(QUEUED).requireOutsideRunnerMay('start')).not.toThrow();
  });
});

describe('the transition table agrees with the seed diagram', () => {
  it('each action moves from exactly the states in the diagram to its target, with the exact refusal', () => {
    const table = Object.fromEntries(
      Object.entries(TRANSITIONS).map(([action, t]) => [
        action,
        { from: [...t.from].sort(), to: t.to, refusal: t.refusal },
      ]),
    );

    expect(table).toEqual({
      start: { from: [QUEUED], to: RUNNING, refusal: NOT_QUEUED },
      succeed: { from: [RUNNING], to: SUCCEEDED, refusal: CANNOT_SUCCEED },
      fail: { from: [RUNNING], to: FAILED, refusal: CANNOT_FAIL },
      cancel: { from: [QUEUED, RUNNING].sort(), to: CANCELLED, refusal: CANNOT_CANCEL },
    });
  });

  it('allowedEdges() lists exactly the five arrows of the diagram', () => {
    const edges = allowedEdges().map(([from, to]) => `${from}->${to}`);

    expect(new Set(edges).size).toBe(edges.length);
    expect(edges.sort()).toEqual(
      ['QUEUED->RUNNING', 'QUEUED->CANCELLED', 'RUNNING->SUCCEEDED', 'RUNNING->FAILED', 'RUNNING->CANCELLED'].sort(),
    );
  });

  it.each([
    [QUEUED, false],
    [RUNNING, false],
    [SUCCEEDED, true],
    [FAILED, true],
    [CANCELLED, true],
  ])('isFinal(%s) is %p', (status, final) => {
    expect(isFinal(status)).toBe(final);
  });

  it('there are exactly the five statuses of the seed', () => {
    expect([...EXECUTION_STATUSES].sort()).toEqual(['CANCELLED', 'FAILED', 'QUEUED', 'RUNNING', 'SUCCEEDED']);
  });
});
