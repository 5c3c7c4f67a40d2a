/** A column's PostgreSQL type, as an `unnest` batch casts its array parameter. */
export type ColumnType = 'uuid' | 'text' | 'integer' | 'smallint' | 'boolean' | 'timestamptz' | 'jsonb';

export interface ColumnSpec {
  type: ColumnType;
  /** Whether a state change of the row writes it (the other columns are written once, on insert). */
  changes?: true;
}

/**
 * A table's columns, one per field of the row's props, in the table's order: the column is the
 * field's snake_case. Raw SQL takes its column lists, casts and parameters from here, so a new
 * column is one line in the registry. Build statements once, at load: their text names their
 * prepared statement (see Database.rows).
 */
export class TableColumns<F extends string> {
  readonly fields: readonly F[];

  constructor(
    readonly table: string,
    private readonly specs: Readonly<Record<F, ColumnSpec>>,
  ) {
    this.fields = Object.keys(specs) as F[];
  }

  column(field: F): string {
    return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  }

  type(field: F): ColumnType {
    return this.specs[field].type;
  }

  /** The fields a state change writes, in the table's order. */
  changing(): F[] {
    return this.fields.filter((field) => this.specs[field].changes === true);
  }

  /** `id, job_id AS "jobId", …`: a SELECT list whose rows are the props themselves. */
  select(fields: readonly F[] = this.fields): string {
    return fields
      .map((field) => {
        const column = this.column(field);
        return column === field ? column : `${column} AS "${field}"`;
      })
      .join(', ');
  }

  /** `id, job_id, …` */
  names(fields: readonly F[] = this.fields): string {
    return fields.map((field) => this.column(field)).join(', ');
  }

  /** `$1::uuid[], $2::uuid[], …`: one array parameter per field, numbered from `first`. */
  arrays(fields: readonly F[] = this.fields, first = 1): string {
    return fields.map((field, i) => `$${first + i}::${this.type(field)}[]`).join(', ');
  }

  /** The parameters of `arrays(fields)`: for each field, the values of every row in order. */
  values(rows: readonly Readonly<Record<F, unknown>>[], fields: readonly F[] = this.fields): unknown[][] {
    return fields.map((field) => rows.map((row) => row[field]));
  }
}
