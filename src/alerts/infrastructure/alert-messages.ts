import type { AlertPayload, AlertRetention } from '../domain/delivery.js';

const HEADLINES: Record<AlertPayload['event'], string> = {
  failed: 'failed',
  attempt_failed: 'failed an attempt',
  recovered: 'recovered',
  succeeded: 'succeeded',
  worker_lost: 'lost its worker',
  late: 'is late',
  long_running: 'runs too long',
  missed: 'missed a slot',
  retention_failed: 'retention passes fail',
  retention_behind: 'retention is behind',
  retention_recovered: 'retention recovered',
  test: 'test alert',
};

/** One line that says what happened: the job's name first, where a reader looks. */
export function headlineOf(payload: AlertPayload): string {
  if (payload.retention) return `Orbit: ${HEADLINES[payload.event]}`;
  if (payload.job === null) return 'Orbit: test alert (the channel works)';
  const attempt = payload.run && payload.run.attempt > 1 ? ` (attempt ${payload.run.attempt})` : '';
  return `Orbit: job ${payload.job.name} ${HEADLINES[payload.event]}${attempt}`;
}

/** A retention alert's lines: when, the error, what is overdue, the rule, what to do. */
function retentionDetailsOf(retention: AlertRetention, dashboard: string): string[] {
  const { days, keepPerJob, intervalSeconds } = retention.rule;
  return [
    `Pass ended: ${retention.passEndedAt}`,
    ...(retention.error !== null ? [`Error: ${retention.error}`] : []),
    ...(retention.failingSince !== null ? [`Failing since: ${retention.failingSince}`] : []),
    `Last successful pass: ${retention.lastSuccessAt ?? 'none yet'}`,
    ...(retention.oldestOverdueFinishedAt !== null
      ? [
          `Oldest run left that should be gone: finished ${retention.oldestOverdueFinishedAt}, ` +
            `${retention.behindSeconds} s past its deletion time`,
        ]
      : []),
    `Rule: finished runs older than ${days} days, beyond the newest ${keepPerJob} of each job, every ${intervalSeconds} s`,
    `What to do: ${retention.todo}`,
    `Dashboard: ${dashboard}`,
  ];
}

function detailsOf(payload: AlertPayload): string[] {
  if (payload.retention) return retentionDetailsOf(payload.retention, payload.links.dashboard);
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

/**
 * Text for Slack's markup (mrkdwn, the message's `text`) with its three control characters
 * escaped as its formatting rules say: a job's name, error or output can then neither mention
 * (`<!channel>`) nor disguise a link (`<https://…|text>`).
 */
export function slackEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Slack's incoming-webhook message: `text` (notifications, fallbacks) and blocks. The output
 * goes in a rich-text preformatted element, whose text Slack shows as it is: no markup is read
 * in it, so no backticks in the output can close it.
 */
export function slackMessageOf(payload: AlertPayload): Record<string, unknown> {
  const headline = headlineOf(payload);
  const output = payload.run?.output
    ? [
        {
          type: 'rich_text',
          elements: [
            { type: 'rich_text_preformatted', elements: [{ type: 'text', text: payload.run.output.slice(-2900) }] },
          ],
        },
      ]
    : [];
  return {
    text: slackEscaped(headline),
    blocks: [
      // plain_text is shown as written: Slack reads no markup in it
      { type: 'header', text: { type: 'plain_text', text: headline.slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: slackEscaped(detailsOf(payload).join('\n')) } },
      ...output,
    ],
  };
}

export function emailOf(payload: AlertPayload): { subject: string; text: string } {
  const output = payload.run?.output ? ['', 'Output (the end):', payload.run.output] : [];
  return { subject: headlineOf(payload), text: [...detailsOf(payload), ...output, ''].join('\n') };
}
