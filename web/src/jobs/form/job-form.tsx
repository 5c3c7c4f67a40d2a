import { useEffect, useState } from 'preact/hooks';
import { chosenTeam } from '../../shared/team-filter';
import { api, ApiError, ok } from '../../api/client';
import { navigate } from '../../shared/router';
import { Loading, PageTitle, Problem } from '../../shared/ui';
import { FieldInput } from './field-input';
import { FormSection } from './form-section';
import {
  bodyOf,
  fieldErrors,
  hasErrors,
  JOB_FIELDS,
  NEW_JOB,
  SECTIONS,
  tooLarge,
  valuesOf,
  withoutErrorsAt,
  type FieldErrors,
  type Values,
} from './job-fields';
import { SchedulePreview } from './schedule-preview';

const NO_ERRORS: FieldErrors = { fields: {}, rest: [] };

export function JobForm({ id }: { id?: string }) {
  const [values, setValues] = useState<Values | undefined>(id ? undefined : { ...NEW_JOB, team: chosenTeam() ?? '' });
  /** The job as it was read: a folded section with a value of its own in it opens. */
  const [loaded, setLoaded] = useState<Values>(NEW_JOB);
  const [loadError, setLoadError] = useState<Error>();
  const [errors, setErrors] = useState<FieldErrors>(NO_ERRORS);
  /** Saves refused so far: each opens the folded sections it names a field of. */
  const [refusals, setRefusals] = useState(0);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!id) return;
    ok(api.GET('/jobs/{id}', { params: { path: { id } } })).then((job) => {
      setLoaded(valuesOf(job));
      setValues(valuesOf(job));
    }, setLoadError);
  }, [id]);

  if (loadError) return <Problem error={loadError} />;
  if (!values) return <Loading />;

  const refuse = (refused: FieldErrors) => {
    setErrors(refused);
    setRefusals((count) => count + 1);
    setSaving(false);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    const body = bodyOf(values);
    try {
      // a chunk of its own (a JSON Schema validator and the API's schema), which only a save loads
      const { scheduleMistakes, schemaMistakes } = await import('./job-checks');
      const found = [
        ...schemaMistakes(body),
        ...(body.cronExpression === null ? [] : await scheduleMistakes(body.cronExpression, body.timezone ?? '')),
      ];
      if (found.length > 0) return refuse(fieldErrors(found));
      const job = id
        ? await ok(api.PATCH('/jobs/{id}', { params: { path: { id } }, body }))
        : await ok(api.POST('/jobs', { body }));
      navigate(`/jobs/${job.id}`, { replace: true });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) {
        return refuse({ fields: {}, rest: [(error as Error).message] });
      }
      refuse(fieldErrors(error.status === 413 ? [tooLarge(body, error.message)] : error.mistakes));
    }
  };

  return (
    <>
      <PageTitle title={id ? `Edit ${values.name}` : 'New job'}>{id ? 'Edit job' : 'New job'}</PageTitle>
      <form class="job-form" onSubmit={(e) => void save(e)} noValidate>
        {SECTIONS.map((section) => {
          const fields = JOB_FIELDS.filter((field) => field.section === section.title);
          return (
            <FormSection
              key={section.title}
              title={section.title}
              fields={fields}
              invalid={fields.some(({ name }) => hasErrors(errors, name))}
              refusals={refusals}
              advanced={'advanced' in section}
              open={fields.some(({ name }) => loaded[name] !== NEW_JOB[name])}
            >
              {fields.map((field) => [
                <FieldInput
                  key={field.name}
                  field={field}
                  value={values[field.name]}
                  errors={errors.fields}
                  onChange={(value, cell) => {
                    setValues({ ...values, [field.name]: value });
                    setErrors((shown) => withoutErrorsAt(shown, field.name, cell));
                  }}
                />,
                // the preview follows the schedule's fields: the expression, then its zone; no schedule, no preview
                field.name === 'timezone' && !values.noSchedule && (
                  <SchedulePreview key="preview" cron={values.cronExpression} timezone={values.timezone} />
                ),
              ])}
            </FormSection>
          );
        })}
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
