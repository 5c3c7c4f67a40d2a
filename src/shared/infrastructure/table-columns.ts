/** A column's PostgreSQL type, as an `unnest` batch casts its array parameter. */
export type ColumnType =
  'uuid' | 'text' | 'text[]' | 'integer' | 'smallint' | 'bigint' | 'real' | 'boolean' | 'timestamptz' | 'jsonb';

export interface ColumnSpec {
  type: ColumnType;
  /** Whether a state change of the row writes it (the other columns are written once, on insert). */
  changes?: true;
  /** The column as SQL names it, when that is not the field's snake_case (a reserved word is quoted). */
  column?: string;
}

/**
 * A table's columns, one per field of its row type R, in the table's order: the column is the
 * field's snake_case. The compiler checks that the registry and R name the same fields, so a
 * repository's SQL and its rows cannot drift apart; raw SQL takes its column lists, casts and
 * parameters from here, and a new column is one line in the registry. Build statements once, at
 * load: their text names their prepared statement (see Database.rows).
 */
export class TableColumns<R extends object> {
  readonly fields: readonly Field<R>[];

  constructor(
    readonly table: string,
    private readonly specs: Readonly<Record<Field<R>, ColumnSpec>>,
  ) {
    this.fields = Object.keys(specs) as Field<R>[];
  }

  column(field: Field<R>): string {
    return this.specs[field].column ?? field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  }

  type(field: Field<R>): ColumnType {
    return this.specs[field].type;
  }

  /** The fields a state change writes, in the table's order. */
  changing(): Field<R>[] {
    return this.fields.filter((field) => this.specs[field].changes === true);
  }

  /** `id, job_id AS "jobId", …`: a SELECT list whose rows are R itself; `alias` qualifies each column. */
  select(fields: readonly Field<R>[] = this.fields, alias?: string): string {
    return fields
      .map((field) => {
        const column = this.column(field);
        if (alias) return `${alias}.${column} AS "${field}"`;
        return column === field ? column : `${column} AS "${field}"`;
      })
      .join(', ');
  }

  /** `id, job_id, …` */
  names(fields: readonly Field<R>[] = this.fields): string {
    return fields.map((field) => this.column(field)).join(', ');
  }

  /** `$1, $2, …`: one parameter per field, numbered from `first` (see `params`). */
  placeholders(fields: readonly Field<R>[] = this.fields, first = 1): string {
    return fields.map((_, i) => `$${first + i}`).join(', ');
  }

  /** `name = $3, command = $4, …`: an UPDATE's SET list, numbered from `first` (see `params`). */
  assignments(fields: readonly Field<R>[], first = 1): string {
    return fields.map((field, i) => `${this.column(field)} = $${first + i}`).join(', ');
  }

  /** `INSERT INTO table (…) VALUES ($1, …)`: one row, whose parameters are `params(row, fields)`. */
  insert(fields: readonly Field<R>[] = this.fields): string {
    return `INSERT INTO ${this.table} (${this.names(fields)}) VALUES (${this.placeholders(fields)})`;
  }

  /** The parameters of `placeholders(fields)` or `assignments(fields)` for one row. */
  params<K extends Field<R>>(row: Readonly<Pick<R, K>>, fields: readonly K[] = this.fields as K[]): unknown[] {
    return fields.map((field) => this.param(field, row[field]));
  }

  /** `$1::uuid[], $2::uuid[], …`: one array parameter per field, numbered from `first`. */
  arrays(fields: readonly Field<R>[] = this.fields, first = 1): string {
    return fields.map((field, i) => `$${first + i}::${this.type(field)}[]`).join(', ');
  }

  /** The parameters of `arrays(fields)`: for each field, the values of every row in order. */
  values<K extends Field<R>>(
    rows: readonly Readonly<Pick<R, K>>[],
    fields: readonly K[] = this.fields as K[],
  ): unknown[][] {
    return fields.map((field) => rows.map((row) => this.param(field, row[field])));
  }

  /** jsonb goes as its JSON text: pg would send a JS array as a PostgreSQL array. */
  private param(field: Field<R>, value: unknown): unknown {
    return this.specs[field].type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
  }
}

/** The fields of a row type, as the registry names them. */
export type Field<R> = Extract<keyof R, string>;
