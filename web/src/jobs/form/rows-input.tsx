import type { ComponentChildren } from 'preact';
import { FieldError } from './field-error';
import type { Column, FieldErrors, InputKind } from './job-fields';
import './rows-input.css';

type Row = Record<string, string | boolean | null>;

interface Props {
  name: string;
  label: string;
  input: Extract<InputKind, { kind: 'rows' }>;
  /** The list as JSON. */
  value: string;
  errors: FieldErrors['fields'];
  describedBy?: string;
  onChange: (value: string, cell?: string) => void;
  /** The list's hint and errors, after its rows. */
  children: ComponentChildren;
}

/**
 * A list edited as rows (a job's parameters): a group per item, named by its place ("Parameter 2"),
 * with a cell per column, a Remove button, and Add below. Each cell shows the errors at its path
 * (`parameters[1].name`); its accessible name says whose it is ("Parameter 2 Name").
 */
export function RowsInput({ name, label, input, value, errors, describedBy, onChange, children }: Props) {
  const { item, columns } = input;
  const rows = JSON.parse(value) as Row[];
  const write = (next: Row[], cell?: string) => onChange(JSON.stringify(next), cell);
  const title = `${item.charAt(0).toUpperCase()}${item.slice(1)}`;
  return (
    <fieldset id={name} class="rows" aria-describedby={describedBy}>
      <legend>{label}</legend>
      {rows.map((row, at) => {
        const legend = `${name}-${at}`;
        return (
          <fieldset key={at} class="row">
            <legend id={legend}>
              {title} {at + 1}
            </legend>
            {columns.map((column) => {
              const path = `${name}[${at}].${column.key}`;
              return (
                <Cell
                  key={column.key}
                  id={`${name}-${at}-${column.key}`}
                  legend={legend}
                  column={column}
                  value={row[column.key] ?? null}
                  errors={errors[path] ?? []}
                  onChange={(cell) =>
                    write(
                      rows.map((other, i) => (i === at ? { ...other, [column.key]: cell } : other)),
                      path,
                    )
                  }
                />
              );
            })}
            <button
              type="button"
              class="quiet"
              aria-label={`Remove ${item} ${at + 1}`}
              onClick={() => write(rows.filter((_, i) => i !== at))}
            >
              Remove
            </button>
          </fieldset>
        );
      })}
      <button type="button" onClick={() => write([...rows, newRow(columns)])}>
        Add {item}
      </button>
      {children}
    </fieldset>
  );
}

interface CellProps {
  id: string;
  /** The id of the row's legend, the first part of the cell's accessible name. */
  legend: string;
  column: Column;
  value: string | boolean | null;
  errors: readonly string[];
  onChange: (value: string | boolean | null) => void;
}

function Cell({ id, legend, column, value, errors, onChange }: CellProps) {
  const props = {
    id,
    'aria-labelledby': `${legend} ${id}-label`,
    'aria-invalid': errors.length > 0 ? true : undefined,
    'aria-describedby': errors.length > 0 ? `${id}-error` : undefined,
  };
  const typed = (event: Event) => {
    const text = (event.currentTarget as HTMLInputElement).value;
    onChange(text === '' && column.optional ? null : text);
  };
  const checkbox = column.input === 'checkbox';
  const label = (
    <label id={`${id}-label`} for={id}>
      {column.label}
    </label>
  );
  return (
    <div class={checkbox ? 'cell cell-checkbox' : 'cell'}>
      {checkbox ? (
        // in the row of the inputs beside it, its label beside the box
        <span class="check">
          <input
            {...props}
            type="checkbox"
            checked={value === true}
            onInput={(event) => onChange(event.currentTarget.checked)}
          />
          {label}
        </span>
      ) : (
        label
      )}
      {!checkbox && (
        <input
          {...props}
          type="text"
          autoComplete="off"
          spellcheck={column.input === 'code' ? false : undefined}
          value={typeof value === 'string' ? value : ''}
          onInput={typed}
        />
      )}
      {errors.length > 0 && <FieldError id={`${id}-error`} messages={errors} />}
    </div>
  );
}

/** An item with nothing in it yet: unchecked boxes, no value in an optional cell, an empty one elsewhere. */
function newRow(columns: readonly Column[]): Row {
  return Object.fromEntries(
    columns.map(({ key, input, optional }) => [key, input === 'checkbox' ? false : optional ? null : '']),
  );
}
