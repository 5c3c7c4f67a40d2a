/** A column's PostgreSQL type, as a batch of rows (`recordset`) reads it. */
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

  /**
   * `jsonb_to_recordset($n::jsonb) AS v (id uuid, …)`: rows given as one JSON parameter (see `json`),
   * typed by their columns. Not `unnest` of one array per column: PostgreSQL knows an array's length
   * when it plans, so it plans such a statement anew on every run (about 0.15 ms on the bench
   * machine), where a JSON parameter's rows are the same estimate with any value, and the prepared
   * statement keeps its generic plan.
   */
  recordset(param: number, fields: readonly F[] = this.fields, alias = 'v'): string {
    const columns = fields.map((field) => `${this.column(field)} ${this.type(field)}`).join(', ');
    return `jsonb_to_recordset($${param}::jsonb) AS ${alias} (${columns})`;
  }

  /** The parameter of `recordset(fields)`: the rows as a JSON array of objects keyed by column. */
  json(rows: readonly Readonly<Record<F, unknown>>[], fields: readonly F[] = this.fields): string {
    const columns = fields.map((field) => [field, this.column(field)] as const);
    return JSON.stringify(
      rows.map((row) => Object.fromEntries(columns.map(([field, column]) => [column, row[field]]))),
    );
  }
}
