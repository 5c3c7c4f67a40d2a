import type { JobField } from './job-fields';
import { Link } from '../../shared/router';
import './field-input.css';

interface Props {
  field: JobField;
  value: string;
  /** What is wrong with its value, as the last save found (the browser's checks or the API's answer). */
  errors?: readonly string[];
  onChange: (value: string) => void;
}

/** A field of the job form: its label, its input of its kind, its hint, and what is wrong with its value. */
export function FieldInput({ field, value, errors, onChange }: Props) {
  const { name, input, hint, see } = field;
  const error = errors && errors.length > 0;
  const described = [hint && `${name}-hint`, error && `${name}-error`].filter(Boolean).join(' ');
  const props = {
    id: name,
    name,
    value,
    onInput: (event: Event) => {
      const target = event.currentTarget as HTMLInputElement;
      onChange(target.type === 'checkbox' ? (target.checked ? 'true' : '') : target.value);
    },
    'aria-invalid': error ? true : undefined,
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
      {error && (
        <div id={`${name}-error`} class="field-error">
          {errors.map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      )}
    </div>
  );
}
