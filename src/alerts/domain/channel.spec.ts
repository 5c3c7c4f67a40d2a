import { Channel } from './channel.js';

const NOW = new Date('2026-12-01T10:00:00Z');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('Channel', () => {
  it('shows no secret: a webhook says whether it has one, a URL its origin and the words of its path', () => {
    const url = 'https://a.example.com/x/s3cret?token=s3cret';
    const hook = Channel.create({ name: 'h', type: 'webhook', url, secret: SECRET }, NOW);
    expect(hook.publicSettings()).toEqual({ url: 'https://a.example.com/x/…?token=…', hasSecret: true });
    const slack = Channel.create(
      { name: 's', type: 'slack', url: 'https://hooks.slack.com/services/T01/B02/secret' },
      NOW,
    );
    expect(slack.publicSettings()).toEqual({ url: 'https://hooks.slack.com/services/…/…/…' });
  });

  it('a masked URL written back is refused, so that it never replaces the stored one', () => {
    const hook = Channel.create({ name: 'h', type: 'webhook', url: 'https://a.example.com/x/s3cret' }, NOW);
    const shown = hook.publicSettings().url as string;
    expect(() => hook.update({ url: shown }, NOW)).toThrow(
      'url is masked as Orbit shows it (https://a.example.com/x/…)',
    );
    expect(hook.url).toBe('https://a.example.com/x/s3cret');
  });

  it('a change without the secret keeps it; the type never changes', () => {
    const hook = Channel.create({ name: 'h', type: 'webhook', url: 'https://a.example.com/x', secret: SECRET }, NOW);
    hook.update({ url: 'https://b.example.com/y' }, NOW);
    expect(hook.settings).toEqual({ type: 'webhook', url: 'https://b.example.com/y', secret: SECRET });
    expect(() => hook.update({ type: 'email' }, NOW)).toThrow('type cannot change');
    const slack = Channel.create({ name: 's', type: 'slack', url: 'https://hooks.slack.com/services/T/B/secret' }, NOW);
    slack.update({ name: 's2' }, NOW);
    expect(slack.url).toBe('https://hooks.slack.com/services/T/B/secret');
  });

  it.each([
    [{ name: 'x', type: 'sms' }, 'type must be one of webhook, slack, email'],
    [{ name: ' ', type: 'webhook', url: 'https://a.example.com' }, 'name must be'],
    [{ name: 'x', type: 'webhook', url: 'file:///etc/passwd' }, 'url must be http or https'],
    [{ name: 'x', type: 'webhook', url: 'https://u:p@a.example.com' }, 'url must not hold credentials'],
    [
      { name: 'x', type: 'slack', url: '${ORBIT_CHANNEL_X_URL}' },
      'url is the placeholder ${ORBIT_CHANNEL_X_URL}, not a URL: orbit apply fills it',
    ],
    [{ name: 'x', type: 'webhook', url: 'https://a.example.com', secret: 'plain' }, 'secret must be whsec_'],
    [{ name: 'x', type: 'email', to: [] }, 'to must be 1 to 50 email addresses'],
    [{ name: 'x', type: 'email', to: ['not an address'] }, "to: 'not an address' is not an email address"],
    [
      { name: 'x', type: 'email', to: ['a@example.com'], url: 'https://a.example.com' },
      'url is only for webhook and slack',
    ],
    [{ name: 'x', type: 'slack', url: 'https://a.example.com', secret: SECRET }, 'secret is only for webhook'],
    [
      { name: 'x', type: 'webhook', url: 'https://a.example.com', allJobs: { on: ['exploded'] } },
      'allJobs.on must hold only',
    ],
  ])('%j is refused: %s', (input, message) => {
    expect(() => Channel.create(input, NOW)).toThrow(message);
  });

  it("allJobs.on takes every job's events and the cluster's", () => {
    const on = ['late', 'retention_failed', 'retention_behind', 'retention_recovered'];
    expect(Channel.create({ name: 'x', type: 'email', to: 'a@example.com', allJobs: { on } }, NOW).allJobsOn).toEqual(
      on,
    );
  });

  it('allJobs without `on` alerts on failures for good', () => {
    expect(Channel.create({ name: 'x', type: 'email', to: 'a@example.com', allJobs: {} }, NOW).allJobsOn).toEqual([
      'failed',
    ]);
  });
});
