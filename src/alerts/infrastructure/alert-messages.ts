import type { AlertPayload } from '../domain/delivery.js';

const HEADLINES: Record<AlertPayload['event'], string> = {
  failed: 'failed',
  attempt_failed: 'failed an attempt',
  recovered: 'recovered',
  succeeded: 'succeeded',
  worker_lost: 'lost its worker',
  late: 'is late',
  long_running: 'runs too long',
  missed: 'missed a slot',
  test: 'test alert',
};

/** One line that says what happened: the job's name first, where a reader looks. */
export function headlineOf(payload: AlertPayload): string {
  if (payload.job === null) return 'Orbit: test alert (the channel works)';
  const attempt = payload.run && payload.run.attempt > 1 ? ` (attempt ${payload.run.attempt})` : '';
  return `Orbit: job ${payload.job.name} ${HEADLINES[payload.event]}${attempt}`;
}

function detailsOf(payload: AlertPayload): string[] {
  const run = payload.run;
  const slot = payload.slot ? [`Slot: ${payload.slot}`] : [];
  if (run === null)
    return [...slot, `${payload.job ? 'Job' : 'Dashboard'}: ${payload.links.job ?? payload.links.dashboard}`];
  return [
    ...slot,
    `Status: ${run.status}${run.exitCode !== null ? ` (exit code ${run.exitCode})` : ''}`,
    ...(run.errorMessage ? [`Error: ${run.errorMessage}`] : []),
    `Trigger: ${run.trigger}${run.scheduledFor ? `, scheduled for ${run.scheduledFor}` : ''}`,
    ...(run.durationMs !== null ? [`Duration: ${run.durationMs} ms`] : []),
    `Run: ${payload.links.run}`,
  ];
}

/** Slack's incoming-webhook message: `text` (notifications, fallbacks) and blocks. */
export function slackMessageOf(payload: AlertPayload): Record<string, unknown> {
  const headline = headlineOf(payload);
  const output = payload.run?.output
    ? [{ type: 'section', text: { type: 'mrkdwn', text: '```' + payload.run.output.slice(-2900) + '```' } }]
    : [];
  return {
    text: headline,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: headline.slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: detailsOf(payload).join('\n') } },
      ...output,
    ],
  };
}

export function emailOf(payload: AlertPayload): { subject: string; text: string } {
  const output = payload.run?.output ? ['', 'Output (the end):', payload.run.output] : [];
  return { subject: headlineOf(payload), text: [...detailsOf(payload), ...output, ''].join('\n') };
}
