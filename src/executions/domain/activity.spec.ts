import { activityBuckets, levelSamples, outcomeBuckets } from './activity.js';
import { ExecutionStatus } from './execution-status.js';

const NOW = new Date('2026-11-30T10:17:42.500Z');

describe('activityBuckets', () => {
  it('the hour is 60 whole minutes, the last one holding now', () => {
    expect(activityBuckets('hour', NOW)).toEqual({
      since: new Date('2026-11-30T09:18:00.000Z'),
      until: new Date('2026-11-30T10:18:00.000Z'),
      stepMs: 60_000,
      count: 60,
    });
  });

  it('the day is 24 whole hours, the last one holding now', () => {
    expect(activityBuckets('day', NOW)).toEqual({
      since: new Date('2026-11-29T11:00:00.000Z'),
      until: new Date('2026-11-30T11:00:00.000Z'),
      stepMs: 3_600_000,
      count: 24,
    });
  });

  it('now on a boundary opens a new bucket', () => {
    const at = new Date('2026-11-30T10:00:00.000Z');
    expect(activityBuckets('hour', at).since).toEqual(new Date('2026-11-30T09:01:00.000Z'));
    expect(activityBuckets('hour', at).until).toEqual(new Date('2026-11-30T10:01:00.000Z'));
  });
});

describe('outcomeBuckets', () => {
  const buckets = activityBuckets('day', NOW);

  it('fills every bucket, those without a run at zero', () => {
    const filled = outcomeBuckets(buckets, [
      { bucket: new Date('2026-11-29T11:00:00.000Z'), status: ExecutionStatus.FAILED, runs: 2 },
      { bucket: new Date('2026-11-30T10:00:00.000Z'), status: ExecutionStatus.SUCCEEDED, runs: 5 },
      { bucket: new Date('2026-11-30T10:00:00.000Z'), status: ExecutionStatus.RUNNING, runs: 1 },
    ]);
    expect(filled).toHaveLength(24);
    expect(filled[0]).toEqual({
      at: new Date('2026-11-29T11:00:00.000Z'),
      runs: { QUEUED: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 2, CANCELLED: 0 },
    });
    expect(filled[1]!.runs).toEqual({ QUEUED: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 });
    expect(filled[23]).toEqual({
      at: new Date('2026-11-30T10:00:00.000Z'),
      runs: { QUEUED: 0, RUNNING: 1, SUCCEEDED: 5, FAILED: 0, CANCELLED: 0 },
    });
  });

  it.each(['2026-11-29T10:00:00.000Z', '2026-11-30T11:00:00.000Z', '2026-11-30T09:30:00.000Z'])(
    'refuses %s, which starts no bucket of the window',
    (start) => {
      expect(() =>
        outcomeBuckets(buckets, [{ bucket: new Date(start), status: ExecutionStatus.FAILED, runs: 1 }]),
      ).toThrow(`${start} starts no bucket of the window`);
    },
  );
});

describe('levelSamples', () => {
  const buckets = activityBuckets('hour', NOW);

  it('sums the changes up to the end of each bucket, the last one sampled now', () => {
    const samples = levelSamples(
      buckets,
      [
        // what waited and ran when the window began
        { bucket: new Date('2026-11-30T09:18:00.000Z'), queued: 3, running: 1 },
        { bucket: new Date('2026-11-30T09:20:00.000Z'), queued: -2, running: 2 },
        { bucket: new Date('2026-11-30T10:17:00.000Z'), queued: 1, running: -3 },
      ],
      NOW,
    );
    expect(samples).toHaveLength(60);
    expect(samples.slice(0, 4)).toEqual([
      { at: new Date('2026-11-30T09:19:00.000Z'), queued: 3, running: 1 },
      { at: new Date('2026-11-30T09:20:00.000Z'), queued: 3, running: 1 },
      { at: new Date('2026-11-30T09:21:00.000Z'), queued: 1, running: 3 },
      { at: new Date('2026-11-30T09:22:00.000Z'), queued: 1, running: 3 },
    ]);
    expect(samples[58]).toEqual({ at: new Date('2026-11-30T10:17:00.000Z'), queued: 1, running: 3 });
    expect(samples[59]).toEqual({ at: NOW, queued: 2, running: 0 });
  });

  it('is zero throughout without a change', () => {
    expect(levelSamples(buckets, [], NOW).every((s) => s.queued === 0 && s.running === 0)).toBe(true);
  });
});
