import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { Job, JobSettings, MISSED_SLOTS_COUNTED, NewJob } from './job.js';

const NOW = new Date('2026-01-10T10:17:00.000Z');
const LATER = new Date('2026-01-12T06:40:00.000Z');

function newJob(overrides: Record<string, unknown> = {}): NewJob {
  return {
    name: 'nightly backup',
    command: 'pg_dump orbit > /backups/orbit.sql',
    cronExpression: '0 3 * * *',
    ...overrides,
  };
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

/** The call is refused with an InvalidArgumentError that names `field`, in its message and its field. */
function expectInvalid(action: () => unknown, field: string): void {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(InvalidArgumentError);
  expect((error as InvalidArgumentError).field).toBe(field);
  expect((error as Error).message).toContain(field);
}

describe('Job.create', () => {
  it('a job with only name, command and cron takes every default', () => {
    const job = Job.create(newJob(), NOW);

    expect(job.toProps()).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: 'nightly backup',
      team: 'default',
      description: '',
      command: 'pg_dump orbit > /backups/orbit.sql',
      cronExpression: '0 3 * * *',
      timezone: 'UTC',
      maxRetries: 0,
      timeoutSeconds: 3600,
      enabled: true,
      misfirePolicy: 'RUN_ONCE',
      concurrencyPolicy: 'ALLOW',
      alerts: [],
      workerSelector: {},
      runOn: 'one',
      maxConcurrent: null,
      concurrencyGroup: null,
      priority: 0,
      createdAt: NOW,
      updatedAt: NOW,
      nextRunAt: new Date('2026-01-11T03:00:00.000Z'),
      version: 1,
      pausedNote: null,
      resumeAt: null,
      triggers: [],
      parameters: [],
      startsAt: null,
      endsAt: null,
      jitterSeconds: 0,
      lateAfterSeconds: null,
      maxDurationSeconds: null,
    });
  });

  it('fields passed as undefined take their defaults', () => {
    const job = Job.create(
      newJob({
        timezone: undefined,
        maxRetries: undefined,
        timeoutSeconds: undefined,
        enabled: undefined,
        misfirePolicy: undefined,
        concurrencyPolicy: undefined,
      }),
      NOW,
    );

    expect(job.timezone).toBe('UTC');
    expect(job.maxRetries).toBe(0);
    expect(job.timeoutSeconds).toBe(3600);
    expect(job.enabled).toBe(true);
    expect(job.misfirePolicy).toBe('RUN_ONCE');
    expect(job.concurrencyPolicy).toBe('ALLOW');
  });

  it('every setting given is kept', () => {
    const job = Job.create(
      newJob({
        description: '  Backs up the database  ',
        timezone: 'Europe/Berlin',
        maxRetries: 3,
        timeoutSeconds: 120,
        enabled: false,
        misfirePolicy: 'SKIP',
        concurrencyPolicy: 'FORBID',
        alerts: [{ channel: 'ops', on: ['failed', 'recovered'] }, { channel: 'mail' }],
        workerSelector: { region: 'eu', gpu: 'true' },
        runOn: 'all',
        concurrencyGroup: 'db',
        priority: -3,
      }),
      NOW,
    );

    expect(job.settings()).toEqual({
      workerSelector: { gpu: 'true', region: 'eu' },
      runOn: 'all',
      maxConcurrent: null,
      concurrencyGroup: 'db',
      priority: -3,
      name: 'nightly backup',
      description: 'Backs up the database',
      command: 'pg_dump orbit > /backups/orbit.sql',
      cronExpression: '0 3 * * *',
      timezone: 'Europe/Berlin',
      maxRetries: 3,
      timeoutSeconds: 120,
      enabled: false,
      misfirePolicy: 'SKIP',
      concurrencyPolicy: 'FORBID',
      alerts: [
        { channel: 'ops', on: ['failed', 'recovered'] },
        { channel: 'mail', on: ['failed'] },
      ],
      triggers: [],
      parameters: [],
      startsAt: null,
      endsAt: null,
      jitterSeconds: 0,
      lateAfterSeconds: null,
      maxDurationSeconds: null,
    });
  });

  it.each([
    [{ alerts: 'ops' }, 'alerts must be a list'],
    [{ alerts: [{ channel: '' }] }, 'alerts[0].channel must be'],
    [{ alerts: [{ channel: 'ops', on: [] }] }, 'alerts[0].on must be a non-empty list'],
    [
      { alerts: [{ channel: 'ops', on: ['exploded'] }] },
      "alerts[0].on must hold only failed, attempt_failed, recovered, succeeded, worker_lost, late, long_running, missed, got 'exploded'",
    ],
    [
      { alerts: [{ channel: 'ops', on: ['failed', 'retention_behind'] }] },
      "alerts[0].on: retention_behind is about the whole cluster, not a job: name it in a channel's allJobs.on",
    ],
    [{ alerts: [{ channel: 'ops' }, { channel: 'ops' }] }, "alerts[1].channel 'ops' is named twice"],
    [{ alerts: [{ channel: 'ops', when: 'always' }] }, 'alerts[0].when is not a field of an alert'],
  ])('alerts %j are refused: %s', (patch, message) => {
    expect(() => Job.create(newJob(patch as never), NOW)).toThrow(message);
  });

  it('every job gets its own id', () => {
    expect(Job.create(newJob(), NOW).id).not.toBe(Job.create(newJob(), NOW).id);
  });

  describe('name', () => {
    it('is trimmed', () => {
      expect(Job.create(newJob({ name: '  nightly backup \t' }), NOW).name).toBe('nightly backup');
    });

    it.each([1, 200])('%p characters are accepted', (length) => {
      expect(Job.create(newJob({ name: 'n'.repeat(length) }), NOW).name).toHaveLength(length);
    });

    it('200 characters surrounded by spaces are accepted: the limit applies after trimming', () => {
      expect(Job.create(newJob({ name: `  ${'n'.repeat(200)}  ` }), NOW).name).toBe('n'.repeat(200));
    });

    it.each([
      { label: '201 characters', name: 'n'.repeat(201) },
      { label: 'empty', name: '' },
      { label: 'only whitespace', name: ' \t\n ' },
      { label: 'missing', name: undefined },
      { label: 'not a string', name: 42 },
    ])('$label is refused', ({ name }) => {
      expectInvalid(() => Job.create(newJob({ name }), NOW), 'name');
    });
  });

  describe.each(['lateAfterSeconds', 'maxDurationSeconds'] as const)('%s', (field) => {
    it.each([1, 604_800, null])('%p is accepted, and kept', (value) => {
      expect(Job.create(newJob({ [field]: value }), NOW)[field]).toBe(value);
    });

    it.each([0, -1, 604_801, 1.5, '60'])('%p is refused', (value) => {
      expectInvalid(() => Job.create(newJob({ [field]: value }), NOW), field);
    });

    it('null clears it', () => {
      const job = Job.create(newJob({ [field]: 60 }), NOW);
      job.update({ [field]: null }, NOW);
      expect(job[field]).toBeNull();
    });
  });

  describe('command', () => {
    it.each([
      { label: 'empty', command: '' },
      { label: 'only whitespace', command: '   \n' },
      { label: 'missing', command: undefined },
      { label: 'not a string', command: ['echo', 'hi'] },
    ])('$label is refused', ({ command }) => {
      expectInvalid(() => Job.create(newJob({ command }), NOW), 'command');
    });

    it('8192 bytes (8 KiB) are accepted', () => {
      const command = `echo ${'x'.repeat(8192 - 5)}`;

      expect(Job.create(newJob({ command }), NOW).command).toBe(command);
    });

    it('8193 bytes are refused', () => {
      expectInvalid(() => Job.create(newJob({ command: `echo ${'x'.repeat(8193 - 5)}` }), NOW), 'command');
    });

    it.each([
      { label: "2-byte 'é'", char: 'é', bytes: 2 },
      { label: "3-byte '€'", char: '€', bytes: 3 },
      { label: '4-byte emoji', char: '😀', bytes: 4 },
    ])('multibyte characters count in UTF-8 bytes: $label', ({ char, bytes }) => {
      const fits = char.repeat(Math.floor(8192 / bytes)) + 'x'.repeat(8192 % bytes);
      expect(Buffer.byteLength(fits, 'utf8')).toBe(8192);

      expect(Job.create(newJob({ command: fits }), NOW).command).toBe(fits);
      // One byte more is refused, though it is far fewer than 8192 characters.
      expectInvalid(() => Job.create(newJob({ command: `${fits}a` }), NOW), 'command');
    });
  });

  describe('cronExpression', () => {
    it.each([
      '*/5 * * * *',
      '0 9 * * 1-5',
      '30 2 1,15 * *',
      '0 0 L * *',
      '*/10 * * * * *',
      '0 30 9 * * MON',
      '@hourly',
      '@daily',
      '@weekly',
      '@monthly',
      '@yearly',
      '@annually',
    ])('%p is accepted', (cronExpression) => {
      const job = Job.create(newJob({ cronExpression }), NOW);

      expect(job.cronExpression).toBe(cronExpression);
      expect(job.nextRunAt!.getTime()).toBeGreaterThan(NOW.getTime());
    });

    it('surrounding and repeated whitespace is normalized', () => {
      expect(Job.create(newJob({ cronExpression: '  0   9 *  * *  ' }), NOW).cronExpression).toBe('0 9 * * *');
    });

    it.each([
      { label: '4 fields', cronExpression: '* * * *' },
      { label: '7 fields', cronExpression: '0 0 0 * * * 2027' },
      { label: 'garbage', cronExpression: 'every day at nine' },
      { label: 'five garbage fields', cronExpression: 'a b c d e' },
      { label: 'minute 61', cronExpression: '61 * * * *' },
      { label: 'hour 24', cronExpression: '0 24 * * *' },
      { label: '@reboot', cronExpression: '@reboot' },
      { label: 'an unknown macro', cronExpression: '@fortnightly' },
      { label: 'a date that never comes (30 February)', cronExpression: '0 0 30 2 *' },
      { label: 'a date that never comes (31 April)', cronExpression: '0 0 31 4 *' },
      { label: 'empty', cronExpression: '' },
      { label: 'only whitespace', cronExpression: '   ' },
      { label: 'missing', cronExpression: undefined },
      { label: 'not a string', cronExpression: 5 },
    ])('$label is refused', ({ cronExpression }) => {
      expectInvalid(() => Job.create(newJob({ cronExpression }), NOW), 'cronExpression');
    });
  });

  describe('timezone', () => {
    it('defaults to UTC', () => {
      const job = Job.create(newJob({ cronExpression: '0 9 * * *' }), NOW);

      expect(job.timezone).toBe('UTC');
      expect(job.nextRunAt).toEqual(new Date('2026-01-11T09:00:00.000Z'));
    });

    it('an IANA zone is kept and the schedule follows its wall clock', () => {
      const job = Job.create(newJob({ cronExpression: '0 9 * * *', timezone: 'Europe/Berlin' }), NOW);

      expect(job.timezone).toBe('Europe/Berlin');
      expect(job.nextRunAt).toEqual(new Date('2026-01-11T08:00:00.000Z'));
    });

    it.each([
      ['utc', 'UTC'],
      ['Etc/UTC', 'Etc/UTC'],
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['europe/berlin', 'Europe/Berlin'],
      ['  Europe/Berlin  ', 'Europe/Berlin'],
      ['AMERICA/NEW_YORK', 'America/New_York'],
    ])('%p is stored as %p (case fixed, the chosen alias kept)', (timezone, canonical) => {
      expect(Job.create(newJob({ timezone }), NOW).timezone).toBe(canonical);
    });

    it.each([
      { label: "'Mars/Base'", timezone: 'Mars/Base' },
      { label: 'an offset-looking name', timezone: 'UTC+25' },
      { label: 'empty', timezone: '' },
      { label: 'only whitespace', timezone: '  ' },
      { label: 'not a string', timezone: 1 },
    ])('$label is refused', ({ timezone }) => {
      expectInvalid(() => Job.create(newJob({ timezone }), NOW), 'timezone');
    });
  });

  describe('maxRetries', () => {
    it.each([0, 1, 100])('%p is accepted', (maxRetries) => {
      expect(Job.create(newJob({ maxRetries }), NOW).maxRetries).toBe(maxRetries);
    });

    it.each([-1, 101, 1.5, Number.NaN, '3', null])('%p is refused', (maxRetries) => {
      expectInvalid(() => Job.create(newJob({ maxRetries }), NOW), 'maxRetries');
    });
  });

  describe('timeoutSeconds', () => {
    it.each([1, 3600, 604_800])('%p is accepted', (timeoutSeconds) => {
      expect(Job.create(newJob({ timeoutSeconds }), NOW).timeoutSeconds).toBe(timeoutSeconds);
    });

    it.each([0, -5, 604_801, 2.5, Number.POSITIVE_INFINITY, '60', null])('%p is refused', (timeoutSeconds) => {
      expectInvalid(() => Job.create(newJob({ timeoutSeconds }), NOW), 'timeoutSeconds');
    });
  });

  describe('enabled', () => {
    it('a disabled job has no next run', () => {
      const job = Job.create(newJob({ enabled: false }), NOW);

      expect(job.enabled).toBe(false);
      expect(job.nextRunAt).toBeNull();
    });

    it.each(['true', 1, 0, null])('%p is refused: only a boolean', (enabled) => {
      expectInvalid(() => Job.create(newJob({ enabled }), NOW), 'enabled');
    });
  });

  describe('misfirePolicy', () => {
    it.each(['RUN_ONCE', 'SKIP'])('%p is accepted', (misfirePolicy) => {
      expect(Job.create(newJob({ misfirePolicy }), NOW).misfirePolicy).toBe(misfirePolicy);
    });

    it.each(['run_once', 'LATER', '', null])('%p is refused', (misfirePolicy) => {
      expectInvalid(() => Job.create(newJob({ misfirePolicy }), NOW), 'misfirePolicy');
    });
  });

  describe('concurrencyPolicy', () => {
    it.each(['ALLOW', 'FORBID', 'REPLACE'])('%p is accepted', (concurrencyPolicy) => {
      expect(Job.create(newJob({ concurrencyPolicy }), NOW).concurrencyPolicy).toBe(concurrencyPolicy);
    });

    it.each(['forbid', 'QUEUE', '', null])('%p is refused', (concurrencyPolicy) => {
      expectInvalid(() => Job.create(newJob({ concurrencyPolicy }), NOW), 'concurrencyPolicy');
    });
  });

  it('nextRunAt is the first slot strictly after now, even when now is a slot', () => {
    const onTheSlot = new Date('2026-01-10T10:15:00.000Z');

    expect(Job.create(newJob({ cronExpression: '*/15 * * * *' }), onTheSlot).nextRunAt).toEqual(
      new Date('2026-01-10T10:30:00.000Z'),
    );
  });
});

describe('Job.update', () => {
  const hourly = () => Job.create(newJob({ cronExpression: '0 * * * *' }), NOW); // nextRunAt 11:00Z on the 10th

  it('changes only the fields in the patch and stamps updatedAt', () => {
    const job = hourly();
    const before = job.toProps();

    job.update({ name: '  renamed  ', maxRetries: 4, concurrencyPolicy: 'REPLACE' }, LATER);

    expect(job.toProps()).toEqual({
      ...before,
      name: 'renamed',
      maxRetries: 4,
      concurrencyPolicy: 'REPLACE',
      updatedAt: LATER,
    });
  });

  it('fields given as undefined are left alone', () => {
    const job = hourly();
    const before = job.toProps();

    job.update(
      { name: undefined, command: undefined, cronExpression: undefined, enabled: undefined, timeoutSeconds: 30 },
      LATER,
    );

    expect(job.toProps()).toEqual({ ...before, timeoutSeconds: 30, updatedAt: LATER });
  });

  it('a change that does not touch the schedule keeps nextRunAt as it was', () => {
    const job = hourly();

    job.update({ command: 'echo changed', timeoutSeconds: 10, misfirePolicy: 'SKIP' }, LATER);

    expect(job.nextRunAt).toEqual(new Date('2026-01-10T11:00:00.000Z'));
  });

  it('a new cron expression replans from now', () => {
    const job = hourly();

    job.update({ cronExpression: '30 7 * * *' }, LATER);

    expect(job.cronExpression).toBe('30 7 * * *');
    expect(job.nextRunAt).toEqual(new Date('2026-01-12T07:30:00.000Z'));
  });

  it('a new time zone replans from now', () => {
    const job = Job.create(newJob({ cronExpression: '0 9 * * *' }), NOW);
    expect(job.nextRunAt).toEqual(new Date('2026-01-11T09:00:00.000Z'));

    job.update({ timezone: 'America/New_York' }, LATER);

    expect(job.timezone).toBe('America/New_York');
    expect(job.nextRunAt).toEqual(new Date('2026-01-12T14:00:00.000Z'));
  });

  it('disabling clears nextRunAt and enabling again replans from now', () => {
    const job = hourly();

    job.update({ enabled: false }, LATER);
    expect(job.enabled).toBe(false);
    expect(job.nextRunAt).toBeNull();

    const muchLater = new Date('2026-02-01T12:34:00.000Z');
    job.update({ enabled: true }, muchLater);
    expect(job.nextRunAt).toEqual(new Date('2026-02-01T13:00:00.000Z'));
  });

  it('a disabled job stays without a next run when its cron changes', () => {
    const job = Job.create(newJob({ enabled: false }), NOW);

    job.update({ cronExpression: '*/5 * * * *' }, LATER);

    expect(job.nextRunAt).toBeNull();
  });

  it('the same expression written differently or the same zone spelled differently is not a change', () => {
    const job = Job.create(newJob({ cronExpression: '0 * * * *', timezone: 'Europe/Berlin' }), NOW);

    job.update({ cronExpression: ' 0  *  * * * ', timezone: 'europe/berlin' }, LATER);

    expect(job.cronExpression).toBe('0 * * * *');
    expect(job.timezone).toBe('Europe/Berlin');
    expect(job.nextRunAt).toEqual(new Date('2026-01-10T11:00:00.000Z'));
  });

  it.each<[string, Partial<JobSettings>, string]>([
    ['a blank name', { name: '  ' }, 'name'],
    ['a 201-character name', { name: 'n'.repeat(201) }, 'name'],
    ['a blank command', { command: ' ' }, 'command'],
    ['an 8193-byte command', { command: 'x'.repeat(8193) }, 'command'],
    ['an invalid cron expression', { cronExpression: '61 * * * *' }, 'cronExpression'],
    ['a cron expression that never fires', { cronExpression: '0 0 30 2 *' }, 'cronExpression'],
    ['an unknown time zone', { timezone: 'Mars/Base' }, 'timezone'],
    ['maxRetries 101', { maxRetries: 101 }, 'maxRetries'],
    ['timeoutSeconds 0', { timeoutSeconds: 0 }, 'timeoutSeconds'],
    ['a non-boolean enabled', { enabled: 'no' as unknown as boolean }, 'enabled'],
    ['an unknown misfire policy', { misfirePolicy: 'ALWAYS' as never }, 'misfirePolicy'],
    ['an unknown concurrency policy', { concurrencyPolicy: 'QUEUE' as never }, 'concurrencyPolicy'],
  ])('a patch with %s is refused with the same rules as create and changes nothing', (_label, patch, field) => {
    const job = hourly();
    const before = job.toProps();

    expectInvalid(() => job.update({ name: 'would be renamed', ...patch }, LATER), field);

    expect(job.toProps()).toEqual(before);
  });
});

describe('Job.planFrom', () => {
  it('moves nextRunAt to the first slot strictly after the instant', () => {
    const job = Job.create(newJob({ cronExpression: '*/15 * * * *' }), NOW);

    job.planFrom(new Date('2026-01-10T10:31:00.000Z'));
    expect(job.nextRunAt).toEqual(new Date('2026-01-10T10:45:00.000Z'));

    job.planFrom(new Date('2026-01-10T10:45:00.000Z'));
    expect(job.nextRunAt).toEqual(new Date('2026-01-10T11:00:00.000Z'));
  });

  it('follows the job time zone', () => {
    const job = Job.create(newJob({ cronExpression: '0 9 * * *', timezone: 'Europe/Berlin' }), NOW);

    job.planFrom(new Date('2026-07-01T00:00:00.000Z'));

    expect(job.nextRunAt).toEqual(new Date('2026-07-01T07:00:00.000Z'));
  });

  it('leaves a disabled job without a next run', () => {
    const job = Job.create(newJob({ enabled: false }), NOW);

    job.planFrom(LATER);

    expect(job.nextRunAt).toBeNull();
  });

  it('the schedule() it plans with is the job cron in the job time zone', () => {
    const job = Job.create(newJob({ cronExpression: '0 9 * * *', timezone: 'Europe/Berlin' }), NOW);

    const schedule = job.schedule();

    expect(schedule?.expression).toBe('0 9 * * *');
    expect(schedule?.timezone).toBe('Europe/Berlin');
  });
});

describe('Job.dueSlots', () => {
  const at = (iso: string) => new Date(`2026-01-10T${iso}Z`);
  const everyMinute = () => Job.create(newJob({ cronExpression: '* * * * *' }), at('10:16:30.000'));

  it('fires nothing before the next slot, the slot itself once it is reached', () => {
    const job = everyMinute();
    expect(job.dueSlots(at('10:16:59.999'), 5000)).toEqual({ fire: [], missed: null });
    expect(job.dueSlots(at('10:17:00.000'), 5000)).toEqual({ fire: [at('10:17:00.000')], missed: null });
  });

  it('fires slots up to `until` ahead of their time, and the ones a short stall left behind', () => {
    const job = everyMinute();
    expect(job.dueSlots(at('10:16:59.700'), 5000, at('10:16:59.999'))).toEqual({ fire: [], missed: null });
    expect(job.dueSlots(at('10:16:59.750'), 5000, at('10:17:00.000'))).toEqual({
      fire: [at('10:17:00.000')],
      missed: null,
    });
    expect(job.dueSlots(at('10:17:02.000'), 5000, at('10:18:00.000'))).toEqual({
      fire: [at('10:17:00.000'), at('10:18:00.000')],
      missed: null,
    });
  });

  it('judges a misfire at `now`, not at `until`', () => {
    const job = everyMinute();
    expect(job.dueSlots(at('10:17:04.000'), 5000, at('10:17:06.000')).missed).toBeNull();
    expect(job.dueSlots(at('10:19:30.000'), 5000, at('10:19:31.000'))).toEqual({
      fire: [at('10:19:00.000')],
      missed: { first: at('10:17:00.000'), last: at('10:18:00.000'), count: 2, countCapped: false },
    });
  });

  it('a misfire of SKIP fires nothing and lets every slot up to now go, the latest included', () => {
    const job = Job.create(newJob({ cronExpression: '* * * * *', misfirePolicy: 'SKIP' }), at('10:16:30.000'));
    expect(job.dueSlots(at('10:19:30.000'), 5000)).toEqual({
      fire: [],
      missed: { first: at('10:17:00.000'), last: at('10:19:00.000'), count: 3, countCapped: false },
    });
  });

  it('a RUN_ONCE misfire of one slot only is a late fire of it, no missed slot', () => {
    expect(everyMinute().dueSlots(at('10:17:30.000'), 5000)).toEqual({ fire: [at('10:17:00.000')], missed: null });
  });

  it(`counts a long episode's slots up to ${MISSED_SLOTS_COUNTED}, and says so`, () => {
    const job = Job.create(newJob({ cronExpression: '* * * * * *', misfirePolicy: 'SKIP' }), at('10:00:00.000'));
    expect(job.dueSlots(at('11:00:00.000'), 5000).missed).toEqual({
      first: at('10:00:01.000'),
      last: at('11:00:00.000'),
      count: MISSED_SLOTS_COUNTED + 1,
      countCapped: true,
    });
    // exactly MISSED_SLOTS_COUNTED + 1 slots (10:00:01 to 10:01:41): all counted
    expect(job.dueSlots(at('10:01:41.000'), 5000).missed).toMatchObject({ count: 101, countCapped: false });
  });
});
