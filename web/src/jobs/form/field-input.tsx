import type { FieldErrors, JobField } from './job-fields';
import { Link } from '../../shared/router';
import { FieldError } from './field-error';
import { RowsInput } from './rows-input';
import './field-input.css';

interface Props {
  field: JobField;
  value: string;
  /** What is wrong with the form's values, as the last save found (the browser's checks or the API's answer). */
  errors: FieldErrors['fields'];
  /** `cell`: the one cell of a field of rows that changed; none when the whole field did. */
  onChange: (value: string, cell?: string) => void;
}

/** A field of the job form: its label, its input of its kind, its hint, and what is wrong with its value. */
export function FieldInput({ field, value, errors, onChange }: Props) {
  const { name, input, hint, see } = field;
  const own = errors[name] ?? [];
  const described = [hint && `${name}-hint`, own.length > 0 && `${name}-error`].filter(Boolean).join(' ');
  const notes = (
    <>
      {hint && (
        <p id={`${name}-hint`} class="hint">
          {hint}
          {see && (
            <>
              {' '}
              <Link href={see.href}>{see.title}</Link>
            </>
          )}
        </p>
      )}
      {own.length > 0 && <FieldError id={`${name}-error`} messages={own} />}
    </>
  );
  if (input.kind === 'rows') {
    return (
      <RowsInput
        name={name}
        label={field.label}
        input={input}
        value={value}
        errors={errors}
        describedBy={described || undefined}
        onChange={onChange}
      >
        {notes}
      </RowsInput>
    );
  }
  const props = {
    id: name,
    name,
    value,
    onInput: (event: Event) => {
      const target = event.currentTarget as HTMLInputElement;
      onChange(target.type === 'checkbox' ? (target.checked ? 'true' : '') : target.value);
    },
    'aria-invalid': own.length > 0 ? true : undefined,
    'aria-describedby': described || undefined,
  };
  return (
    <div class={input.kind === 'checkbox' ? 'field field-checkbox' : 'field'}>
      {input.kind === 'checkbox' && <input {...props} type="checkbox" value="true" checked={value === 'true'} />}
      <label for={name}>{field.label}</label>
      {input.kind === 'text' && <input {...props} type="text" autoComplete="off" placeholder={input.placeholder} />}
      {input.kind === 'code' && <input {...props} type="text" autoComplete="off" spellcheck={false} />}
      {input.kind === 'integer' && <input {...props} type="text" inputMode="numeric" />}
      {input.kind === 'lines' && <textarea {...props} rows={input.rows} spellcheck={false} />}
      {input.kind === 'choice' && (
        <select {...props} onChange={props.onInput}>
          {input.options.map(([option, meaning]) => (
            <option key={option} value={option}>
              {option}: {meaning}
            </option>
          ))}
        </select>
      )}
      {notes}
    </div>
  );
}
