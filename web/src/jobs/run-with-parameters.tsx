import { useState } from 'preact/hooks';
import { api, ok, type Job } from '../api/client';
import { navigate } from '../shared/router';
import { Problem } from '../shared/ui';

/** A form made from the job's declared parameters, with an optional instant to run at. */
export function RunWithParameters({ job }: { job: Job }) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(job.parameters.map((parameter) => [parameter.name, parameter.default ?? ''])),
  );
  const [runAt, setRunAt] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    // an empty field is no value: the default (or the 400 of a required one) is the API's to apply
    const parameters = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
    try {
      const execution = await ok(
        api.POST('/jobs/{id}/executions', {
          params: { path: { id: job.id } },
          body: { parameters, runAt: runAt ? new Date(runAt).toISOString() : undefined },
        }),
      );
      navigate(`/executions/${execution.id}`);
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  return (
    <section aria-labelledby="run-with-parameters">
      <h2 id="run-with-parameters">Run with parameters</h2>
      <form class="job-form" onSubmit={(e) => void submit(e)} noValidate>
        {job.parameters.map((parameter) => (
          <div class="field" key={parameter.name}>
            <label for={`param-${parameter.name}`}>
              {parameter.name}
              {parameter.required ? ' (required)' : ''}
            </label>
            <input
              id={`param-${parameter.name}`}
              type="text"
              value={values[parameter.name]}
              onInput={(e) => setValues({ ...values, [parameter.name]: e.currentTarget.value })}
            />
            {(parameter.description || parameter.pattern) && (
              <p class="hint">
                {parameter.description}
                {parameter.pattern && ` (must match ${parameter.pattern})`}
              </p>
            )}
          </div>
        ))}
        <div class="field">
          <label for="run-at">Run at</label>
          <input
            id="run-at"
            type="datetime-local"
            step="1"
            value={runAt}
            onInput={(e) => setRunAt(e.currentTarget.value)}
          />
          <p class="hint">Empty: now. Within a year; cancellable until it starts.</p>
        </div>
        <Problem error={problem} />
        <div class="actions">
          <button type="submit">{runAt ? 'Queue run' : 'Run'}</button>
        </div>
      </form>
    </section>
  );
}
