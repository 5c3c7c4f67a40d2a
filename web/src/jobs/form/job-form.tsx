import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, ok, type Job, type JobInput } from '../../api/client';
import { alertsOf, alertsText, optionalSeconds } from './field-text';
import { FormSection } from './form-section';
import { Loading, PageTitle, Problem, Time } from '../../shared/ui';
import { cronInWords, dateTimeIn, LOCAL_ZONE } from '../../shared/format';
import { navigate } from '../../shared/router';
import * as placement from '../../workers/placement';
import { EXTRA_FIELDS, extraBodyOf, extraValuesOf, NEW_EXTRAS } from './job-form-extras';

/** The form's fields by the API's names, each with the label people (and tests) know it by. */
const FIELDS = {
  name: 'Name',
  command: 'Command',
  cronExpression: 'Cron expression',
  timezone: 'Time zone',
  maxRetries: 'Max retries',
  timeoutSeconds: 'Timeout (seconds)',
  misfirePolicy: 'Missed slots',
  concurrencyPolicy: 'Overlapping runs',
  ...placement.PLACEMENT_FIELDS,
  ...EXTRA_FIELDS,
  alerts: 'Alerts',
  lateAfterSeconds: 'Late after (seconds)',
  maxDurationSeconds: 'Long-running after (seconds)',
} as const;
type Field = keyof typeof FIELDS;
type Values = Record<Field, string>;

const NEW_JOB: Values = {
  name: '',
  command: '',
  cronExpression: '',
  timezone: 'UTC',
  maxRetries: '0',
  timeoutSeconds: '3600',
  misfirePolicy: 'RUN_ONCE',
  concurrencyPolicy: 'ALLOW',
  ...placement.NEW_PLACEMENT,
  ...NEW_EXTRAS,
  alerts: '',
  lateAfterSeconds: '',
  maxDurationSeconds: '',
};
interface Section {
  title: string;
  /** Folded away unless the job holds a value other than the default in it, or a save's answer names one. */
  advanced?: boolean;
  fields: readonly Field[];
}

/**
 * Declares the form's sections, each field in one; a field of FIELDS in none would not be drawn,
 * so such a list does not compile.
 */
function sections<const S extends readonly Section[]>(
  list: S & ([Exclude<Field, S[number]['fields'][number]>] extends [never] ? unknown : 'a field is in no section'),
): S {
  return list;
}

/** The form in the order a reader scans it: what, when and how often first, the rest folded. */
const SECTIONS = sections([
  { title: 'Basics', fields: ['name', 'command', 'cronExpression', 'timezone', 'noSchedule'] },
  { title: 'Retries and limits', fields: ['maxRetries', 'timeoutSeconds', 'concurrencyPolicy'] },
  { title: 'Which slots fire', advanced: true, fields: ['misfirePolicy', 'startsAt', 'endsAt', 'jitterSeconds'] },
  {
    title: 'Where it runs',
    advanced: true,
    fields: ['workerSelector', 'runOn', 'maxConcurrent', 'concurrencyGroup', 'priority'],
  },
  { title: 'Chains and parameters', advanced: true, fields: ['triggers', 'parameters'] },
  { title: 'Alerts', advanced: true, fields: ['alerts', 'lateAfterSeconds', 'maxDurationSeconds'] },
]);

/** How long typing must pause before the preview asks the API. */
const PREVIEW_DELAY_MS = 250;

function valuesOf(job: Job): Values {
  return {
    name: job.name,
    command: job.command,
    cronExpression: job.cronExpression ?? '',
    timezone: job.timezone,
    maxRetries: String(job.maxRetries),
    timeoutSeconds: String(job.timeoutSeconds),
    misfirePolicy: job.misfirePolicy,
    concurrencyPolicy: job.concurrencyPolicy,
    ...placement.placementValues(job),
    ...extraValuesOf(job),
    alerts: alertsText(job.alerts),
    lateAfterSeconds: job.lateAfterSeconds === null ? '' : String(job.lateAfterSeconds),
    maxDurationSeconds: job.maxDurationSeconds === null ? '' : String(job.maxDurationSeconds),
  };
}

/** A whole number as a number; anything else as typed, for the API to name what is wrong with it. */
function integer(text: string): number {
  return /^-?\d+$/.test(text.trim()) ? Number(text) : (text as unknown as number);
}

function bodyOf(values: Values): JobInput {
  return {
    name: values.name,
    command: values.command,
    cronExpression: values.noSchedule ? null : values.cronExpression,
    timezone: values.timezone,
    maxRetries: integer(values.maxRetries),
    timeoutSeconds: integer(values.timeoutSeconds),
    misfirePolicy: values.misfirePolicy as JobInput['misfirePolicy'],
    concurrencyPolicy: values.concurrencyPolicy as JobInput['concurrencyPolicy'],
    ...placement.placementBody(values, integer),
    ...extraBodyOf(values, integer),
    alerts: alertsOf(values.alerts),
    lateAfterSeconds: optionalSeconds(values.lateAfterSeconds),
    maxDurationSeconds: optionalSeconds(values.maxDurationSeconds),
  };
}

/**
 * The API names the field its message is about first (`cronExpression '…' is not valid`, several
 * joined by `; `); a duplicate name is a 409 about the name.
 */
export function fieldErrors(message: string): { fields: Partial<Record<Field, string>>; rest: string[] } {
  const fields: Partial<Record<Field, string>> = {};
  const rest: string[] = [];
  for (const part of message.split('; ')) {
    const first = /^A job named /.test(part) ? 'name' : /^[A-Za-z]+/.exec(part)?.[0];
    if (first && first in FIELDS) fields[first as Field] = fields[first as Field] ?? part;
    else rest.push(part);
  }
  return { fields, rest };
}

function usePreview(cron: string, timezone: string) {
  const [preview, setPreview] = useState<{ runs?: string[]; error?: string }>({});
  useEffect(() => {
    if (cron.trim() === '') {
      setPreview({});
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      ok(
        api.GET('/schedules/preview', { params: { query: { cron, timezone: timezone || undefined, count: 5 } } }),
      ).then(
        ({ runs }) => !stale && setPreview({ runs }),
        (error: Error) => !stale && setPreview({ error: error.message }),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [cron, timezone]);
  return preview;
}

export function JobForm({ id }: { id?: string }) {
  const [values, setValues] = useState<Values | undefined>(id ? undefined : NEW_JOB);
  /** The job as it was read: a folded section with a value of its own in it opens. */
  const [loaded, setLoaded] = useState<Values>(NEW_JOB);
  const [loadError, setLoadError] = useState<Error>();
  const [errors, setErrors] = useState<{ fields: Partial<Record<Field, string>>; rest: string[] }>({
    fields: {},
    rest: [],
  });
  const [saving, setSaving] = useState(false);
  const preview = usePreview(values?.noSchedule ? '' : (values?.cronExpression ?? ''), values?.timezone ?? '');

  useEffect(() => {
    if (!id) return;
    ok(api.GET('/jobs/{id}', { params: { path: { id } } })).then((job) => {
      setLoaded(valuesOf(job));
      setValues(valuesOf(job));
    }, setLoadError);
  }, [id]);

  if (loadError) return <Problem error={loadError} />;
  if (!values) return <Loading />;

  const set = (field: Field) => (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    setValues({ ...values, [field]: input.type === 'checkbox' ? (input.checked ? 'true' : '') : input.value });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    try {
      const body = bodyOf(values);
      const job = id
        ? await ok(api.PATCH('/jobs/{id}', { params: { path: { id } }, body }))
        : await ok(api.POST('/jobs', { body }));
      navigate(`/jobs/${job.id}`, { replace: true });
    } catch (error) {
      const message = (error as Error).message;
      setErrors(
        error instanceof ApiError && error.status < 500 ? fieldErrors(message) : { fields: {}, rest: [message] },
      );
      setSaving(false);
    }
  };

  /** A field with its label and, beside it, what the API said about it. */
  const field = (name: Field, input: (props: Record<string, unknown>) => JSX.Element, hint?: string) => {
    const error = errors.fields[name];
    const described = [hint && `${name}-hint`, error && `${name}-error`].filter(Boolean).join(' ');
    return (
      <div class="field" key={name}>
        <label for={name}>{FIELDS[name]}</label>
        {input({
          id: name,
          name,
          value: values[name],
          onInput: set(name),
          'aria-invalid': error ? true : undefined,
          'aria-describedby': described || undefined,
        })}
        {hint && (
          <p id={`${name}-hint`} class="hint">
            {hint}
          </p>
        )}
        {error && (
          <p id={`${name}-error`} class="field-error">
            {error}
          </p>
        )}
      </div>
    );
  };

  const words = cronInWords(values.cronExpression);
  const hints = placement.PLACEMENT_HINTS;
  const controls: Record<Field, JSX.Element> = {
    name: field('name', (p) => <input {...p} type="text" autoComplete="off" />),
    command: field('command', (p) => <textarea {...p} rows={3} spellcheck={false} />, 'Run by /bin/sh -c'),
    cronExpression: field(
      'cronExpression',
      (p) => <input {...p} type="text" autoComplete="off" spellcheck={false} />,
      '5 fields (minute hour day month weekday), 6 with seconds first, or @hourly, @daily, @weekly, @monthly, @yearly',
    ),
    timezone: field(
      'timezone',
      (p) => <input {...p} type="text" autoComplete="off" />,
      'IANA name, for example Europe/Berlin',
    ),
    noSchedule: field('noSchedule', (p) => <input {...p} type="checkbox" value="true" checked={p.value === 'true'} />),
    startsAt: field(
      'startsAt',
      (p) => <input {...p} type="text" placeholder="2026-01-01T00:00:00Z" />,
      'No slot fires before (ISO instant; empty: none)',
    ),
    endsAt: field('endsAt', (p) => <input {...p} type="text" />, 'No slot fires after (ISO instant; empty: none)'),
    jitterSeconds: field(
      'jitterSeconds',
      (p) => <input {...p} type="text" inputMode="numeric" />,
      'Each run is due 0 to N seconds after its slot (0 to 3600)',
    ),
    triggers: field(
      'triggers',
      (p) => <textarea {...p} rows={2} spellcheck={false} />,
      'One a line: job name, or job name: SUCCEEDED, FAILED, CANCELLED',
    ),
    parameters: field(
      'parameters',
      (p) => <textarea {...p} rows={4} spellcheck={false} />,
      'JSON list of { "name", "description", "default", "required", "pattern" }; the command sees ORBIT_PARAM_<NAME>',
    ),
    maxRetries: field('maxRetries', (p) => <input {...p} type="text" inputMode="numeric" />),
    timeoutSeconds: field('timeoutSeconds', (p) => <input {...p} type="text" inputMode="numeric" />),
    misfirePolicy: field('misfirePolicy', (p) => (
      <select {...p} onChange={p.onInput as never}>
        <option value="RUN_ONCE">RUN_ONCE: run the latest missed slot once</option>
        <option value="SKIP">SKIP: drop missed slots</option>
      </select>
    )),
    concurrencyPolicy: field('concurrencyPolicy', (p) => (
      <select {...p} onChange={p.onInput as never}>
        <option value="ALLOW">ALLOW: run side by side</option>
        <option value="FORBID">FORBID: skip while one is active</option>
        <option value="REPLACE">REPLACE: cancel the active one</option>
      </select>
    )),
    workerSelector: field(
      'workerSelector',
      (p) => <input {...p} type="text" autoComplete="off" />,
      hints.workerSelector,
    ),
    runOn: field('runOn', (p) => (
      <select {...p} onChange={p.onInput as never}>
        <option value="one">one: a run on any matching worker</option>
        <option value="all">all: a run on every live matching worker</option>
      </select>
    )),
    maxConcurrent: field('maxConcurrent', (p) => <input {...p} type="text" autoComplete="off" />, hints.maxConcurrent),
    concurrencyGroup: field(
      'concurrencyGroup',
      (p) => <input {...p} type="text" autoComplete="off" />,
      hints.concurrencyGroup,
    ),
    priority: field('priority', (p) => <input {...p} type="text" autoComplete="off" />, hints.priority),
    alerts: field(
      'alerts',
      (p) => <textarea {...p} rows={2} spellcheck={false} />,
      'One rule a line: channel: failed, recovered, late, long_running, missed, … (a channel alone: failed)',
    ),
    lateAfterSeconds: field(
      'lateAfterSeconds',
      (p) => <input {...p} type="text" inputMode="numeric" />,
      'A slot with no started run this long after its time is late; empty: not watched',
    ),
    maxDurationSeconds: field(
      'maxDurationSeconds',
      (p) => <input {...p} type="text" inputMode="numeric" />,
      'A run still running this long is long-running (it runs on); empty: no limit',
    ),
  };
  const previewRegion = (
    <section key="preview" aria-labelledby="preview-heading" class="preview" aria-live="polite">
      <h2 id="preview-heading">Next fire times</h2>
      {words && <p class="words">{words}</p>}
      {preview.error && <p class="field-error">{preview.error}</p>}
      {preview.runs && (
        <ol>
          {preview.runs.map((run) => (
            <li key={run}>
              <Time iso={run} />
              {values.timezone && values.timezone !== LOCAL_ZONE && (
                <span class="hint"> · {dateTimeIn(run, values.timezone)} in the job's time zone</span>
              )}
            </li>
          ))}
        </ol>
      )}
      {!preview.error && !preview.runs && <p class="hint">Type a cron expression to see when it fires.</p>}
    </section>
  );
  return (
    <>
      <PageTitle title={id ? `Edit ${values.name}` : 'New job'}>{id ? 'Edit job' : 'New job'}</PageTitle>
      <form class="job-form" onSubmit={(e) => void save(e)} noValidate>
        {SECTIONS.map((section) => (
          <FormSection
            key={section.title}
            title={section.title}
            fields={section.fields}
            labels={FIELDS}
            errors={errors.fields}
            advanced={'advanced' in section}
            open={section.fields.some((name) => loaded[name] !== NEW_JOB[name])}
          >
            {section.fields.map((name) => [controls[name], name === 'timezone' && previewRegion])}
          </FormSection>
        ))}
        <div role="alert">
          {errors.rest.map((message) => (
            <p key={message} class="problem">
              {message}
            </p>
          ))}
        </div>
        <div class="actions">
          <button type="submit" disabled={saving}>
            Save
          </button>
          <button type="button" class="quiet" onClick={() => history.back()}>
            Back
          </button>
        </div>
      </form>
    </>
  );
}
