import type { Job, JobInput } from '../../api/client';

/** The job form's fields for chains, parameters, windows and jitter, by the API's names, with their labels. */
export const EXTRA_FIELDS = {
  noSchedule: 'No schedule',
  triggers: 'Runs after',
  parameters: 'Parameters',
  startsAt: 'Starts at',
  endsAt: 'Ends at',
  jitterSeconds: 'Jitter (seconds)',
} as const;
type Extra = keyof typeof EXTRA_FIELDS;

export const NEW_EXTRAS: Record<Extra, string> = {
  noSchedule: '',
  triggers: '',
  parameters: '[]',
  startsAt: '',
  endsAt: '',
  jitterSeconds: '0',
};

/** One trigger a line: `<job name>` (on success) or `<job name>: SUCCEEDED, FAILED`. */
export function triggersText(triggers: Job['triggers']): string {
  return triggers.map((trigger) => `${trigger.after}: ${(trigger.on ?? ['SUCCEEDED']).join(', ')}`).join('\n');
}

export function parseTriggers(text: string): JobInput['triggers'] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const colon = line.lastIndexOf(':');
      if (colon < 0) return { after: line };
      const on = line
        .slice(colon + 1)
        .split(',')
        .map((outcome) => outcome.trim().toUpperCase())
        .filter((outcome) => outcome !== '');
      return { after: line.slice(0, colon).trim(), on: on as NonNullable<JobInput['triggers']>[number]['on'] };
    });
}

/** JSON as typed; text that is no JSON goes as it is, for the API to name what is wrong with it. */
function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function extraValuesOf(job: Job): Record<Extra, string> {
  return {
    noSchedule: job.cronExpression === null ? 'true' : '',
    triggers: triggersText(job.triggers),
    parameters: JSON.stringify(job.parameters, null, 2),
    startsAt: job.startsAt ?? '',
    endsAt: job.endsAt ?? '',
    jitterSeconds: String(job.jitterSeconds),
  };
}

export function extraBodyOf(values: Record<Extra, string>, integer: (text: string) => number): Partial<JobInput> {
  return {
    triggers: parseTriggers(values.triggers),
    parameters: json(values.parameters) as JobInput['parameters'],
    startsAt: values.startsAt.trim() || null,
    endsAt: values.endsAt.trim() || null,
    jitterSeconds: integer(values.jitterSeconds),
  };
}
