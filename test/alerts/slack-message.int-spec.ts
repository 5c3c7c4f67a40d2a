import { Channel } from '../../src/alerts/domain/channel.js';
import type { AlertPayload } from '../../src/alerts/domain/delivery.js';
import { ChannelSender } from '../../src/alerts/infrastructure/channel-sender.js';
import { loadConfig } from '../../src/config/orbit-config.js';
import { SystemClock } from '../../src/shared/infrastructure/system-clock.js';
import { expectInert, slackTexts, startReceiver } from './support.js';

/** Output that closes a code block, then mentions everyone and disguises a link. */
const HOSTILE = [
  'compiling…',
  '```',
  '<!channel> your build is *broken*: <https://evil.example/login|sign in to Orbit> & fix it',
  '<@U024BE7LH> `',
  '```',
  'tail & more',
].join('\n');

function payload(output: string): AlertPayload {
  return {
    event: 'failed',
    timestamp: '2026-12-01T10:00:00.000Z',
    job: { id: 'b6f4c3a0-5d7e-4b0a-9d0e-2f3c4b5a6d7e', name: '<!here> nightly & <https://evil.example|backup>' },
    slot: null,
    run: {
      id: '0c1d2e3f-4a5b-4c6d-8e9f-a0b1c2d3e4f5',
      status: 'FAILED',
      attempt: 1,
      trigger: 'MANUAL',
      scheduledFor: null,
      startedAt: '2026-12-01T09:59:58.000Z',
      finishedAt: '2026-12-01T10:00:00.000Z',
      durationMs: 2000,
      exitCode: 1,
      errorMessage: 'spawn failed: <!everyone> <https://evil.example|details>',
      output,
    },
    links: {
      dashboard: 'http://orbit.test/dashboard/',
      job: 'http://orbit.test/dashboard/jobs/b6f4',
      run: 'http://orbit.test/dashboard/executions/0c1d',
    },
  };
}

describe('a Slack alert carrying hostile output, error and job name', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sender: ChannelSender;
  beforeAll(async () => {
    receiver = await startReceiver();
    sender = new ChannelSender(
      loadConfig({ ORBIT_ALERTS_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'silent' }, []),
      new SystemClock(),
    );
  });
  afterAll(async () => {
    sender?.onApplicationShutdown();
    await receiver?.close();
  });

  async function sent(output: string): Promise<unknown> {
    const path = `/slack-${receiver.received.length}`;
    const channel = Channel.create({ name: 'team', type: 'slack', url: receiver.url(path) }, new Date());
    const delivery = {
      id: 'd-1',
      channelId: channel.id,
      event: 'failed' as const,
      payload: payload(output),
      attempt: 1,
      giveUpAt: new Date(Date.now() + 60_000),
    };
    expect(await sender.send(channel, delivery, AbortSignal.timeout(5000))).toMatchObject({ ok: true });
    const [request] = receiver.at(path);
    return JSON.parse(request!.body) as unknown;
  }

  it('arrives inert: every text Slack reads markup in has its control characters escaped', async () => {
    const message = await sent(HOSTILE);
    const texts = slackTexts(message);
    expectInert(texts);
    const markup = texts.filter((t) => t.markup).map((t) => t.text);
    expect(markup).toEqual([
      'Orbit: job &lt;!here&gt; nightly &amp; &lt;https://evil.example|backup&gt; failed',
      expect.stringContaining('Error: spawn failed: &lt;!everyone&gt; &lt;https://evil.example|details&gt;'),
    ]);
    expect(markup.join('\n')).not.toContain('compiling');
  });

  it('the output is one preformatted rich-text element, as the run printed it', async () => {
    const texts = slackTexts(await sent(HOSTILE));
    expect(texts.filter((t) => t.text.includes('compiling'))).toEqual([
      { markup: false, text: HOSTILE, within: 'rich_text_preformatted' },
    ]);
  });

  it('keeps the end of a long output', async () => {
    const long = `${'x'.repeat(5000)}\nthe error is here`;
    const [output] = slackTexts(await sent(long)).filter((t) => t.within === 'rich_text_preformatted');
    expect(output!.text).toHaveLength(2900);
    expect(output!.text.endsWith('the error is here')).toBe(true);
  });
});
