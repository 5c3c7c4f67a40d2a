import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './form-section.css';

interface Props {
  title: string;
  /** The fields inside; their labels are listed beside a folded section's title so a reader knows what it holds. */
  fields: ReadonlyArray<{ name: string; label: string }>;
  /** A field inside shows an error. */
  invalid: boolean;
  /** The saves refused so far. */
  refusals: number;
  /** Folded away (native details) until opened, unless `open`. */
  advanced?: boolean;
  /** Open at first: the job holds a value other than the default in it. */
  open?: boolean;
  children: ComponentChildren;
}

/**
 * A group of the job form's fields under a name (fieldset and legend). An advanced one folds
 * away; a refused save that names a field inside opens it, so that the message beside the field
 * is seen (each refused save, even when the reader folded it again after the last one).
 */
export function FormSection({ title, fields, invalid, refusals, advanced, open, children }: Props) {
  const details = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (invalid && details.current) details.current.open = true;
    // on each refusal only: a section the reader folds while fixing a field stays folded
  }, [refusals]);

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
