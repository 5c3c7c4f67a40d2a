import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './form-section.css';

interface Props {
  title: string;
  /** The fields inside; their labels are listed beside a folded section's title so a reader knows what it holds. */
  fields: ReadonlyArray<{ name: string; label: string }>;
  /** What the API said about the fields of the last save, by name. */
  errors: Partial<Record<string, string>>;
  /** Folded away (native details) until opened, unless `open`. */
  advanced?: boolean;
  /** Open at first: the job holds a value other than the default in it. */
  open?: boolean;
  children: ComponentChildren;
}

/**
 * A group of the job form's fields under a name (fieldset and legend). An advanced one folds
 * away; a save whose answer names a field inside opens it, so that the message beside the field
 * is seen (each failed save, even when the reader folded it again after the last one).
 */
export function FormSection({ title, fields, errors, advanced, open, children }: Props) {
  const details = useRef<HTMLDetailsElement>(null);
  const invalid = fields.some(({ name }) => errors[name]);
  useEffect(() => {
    if (invalid && details.current) details.current.open = true;
  }, [errors, invalid]);

  if (!advanced) {
    return (
      <fieldset class="form-section">
        <legend>{title}</legend>
        {children}
      </fieldset>
    );
  }
  return (
    <details ref={details} class="form-section" open={open}>
      <summary>
        {title} <span class="hint">{fields.map(({ label }) => label).join(', ')}</span>
      </summary>
      <fieldset>
        <legend class="visually-hidden">{title}</legend>
        {children}
      </fieldset>
    </details>
  );
}
