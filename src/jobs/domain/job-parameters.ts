import { RE2JS, RE2JSSyntaxException } from 're2js';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

export const PARAMETER_LIMITS = {
  perJob: 50,
  nameMaxLength: 100,
  valueMaxBytes: 4 * 1024,
  descriptionMaxLength: 1000,
  patternMaxLength: 1000,
} as const;

/** A name a shell and `env` take as it is: ORBIT_PARAM_<NAME>. */
const NAME = /^[A-Z][A-Z0-9_]*$/;

/** One input a job declares; a run gets a value for it from its caller or the default. */
export interface JobParameter {
  name: string;
  description: string | null;
  default: string | null;
  required: boolean;
  /** A regular expression (RE2 syntax) the whole value must match; null: any value. */
  pattern: string | null;
}

/** The values a run has: one per declared parameter that has one. */
export type ParameterValues = Record<string, string>;

/** The declaration as a caller writes it: only `name` is required. */
export type JobParameterInput = Pick<JobParameter, 'name'> & Partial<JobParameter>;

const FIELDS = ['name', 'description', 'default', 'required', 'pattern'] as const;

/** A job's declared parameters, checked (names, patterns that compile, defaults that fit), or a 400 naming the field. */
export function jobParametersOf(value: unknown): JobParameter[] {
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError(
      'parameters must be a list of { name, description, default, required, pattern }',
      'parameters',
    );
  }
  if (value.length > PARAMETER_LIMITS.perJob) {
    throw new InvalidArgumentError(`parameters must have at most ${PARAMETER_LIMITS.perJob} entries`, 'parameters');
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const field = `parameters[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new InvalidArgumentError(
        `${field} must be an object { name, description, default, required, pattern }`,
        field,
      );
    }
    const unknown = Object.keys(entry).find((key) => !(FIELDS as readonly string[]).includes(key));
    if (unknown !== undefined)
      throw new InvalidArgumentError(`${field}.${unknown} is not a field of a parameter`, field);
    const raw = entry as Record<string, unknown>;
    const name = raw.name;
    if (typeof name !== 'string' || !NAME.test(name) || name.length > PARAMETER_LIMITS.nameMaxLength) {
      throw new InvalidArgumentError(
        `${field}.name must match [A-Z][A-Z0-9_]* (at most ${PARAMETER_LIMITS.nameMaxLength} characters), got '${String(name)}'`,
        `${field}.name`,
      );
    }
    if (seen.has(name)) throw new InvalidArgumentError(`${field}.name '${name}' is declared twice`, `${field}.name`);
    seen.add(name);
    const parameter: JobParameter = {
      name,
      description: optionalText(raw.description, `${field}.description`, PARAMETER_LIMITS.descriptionMaxLength),
      default: raw.default === undefined || raw.default === null ? null : valueOf(raw.default, `${field}.default`),
      required: optionalBoolean(raw.required, `${field}.required`),
      pattern: optionalText(raw.pattern, `${field}.pattern`, PARAMETER_LIMITS.patternMaxLength),
    };
    if (parameter.pattern !== null) compiled(parameter.pattern, `${field}.pattern`, `${field}.pattern`);
    if (parameter.default !== null) requireMatch(parameter, parameter.default, `${field}.default`);
    return parameter;
  });
}

/**
 * The values a run gets: `given` checked against the declaration (an unknown name, a missing
 * required one or a value that does not match is a 400 naming it), the defaults for the rest.
 */
export function parameterValuesFor(
  declared: readonly JobParameter[],
  given: Readonly<Record<string, unknown>> = {},
): ParameterValues {
  const byName = new Map(declared.map((parameter) => [parameter.name, parameter]));
  const unknown = Object.keys(given).find((name) => !byName.has(name));
  if (unknown !== undefined) {
    throw new InvalidArgumentError(`parameters.${unknown} is not a parameter of this job`, `parameters.${unknown}`);
  }
  const values: ParameterValues = {};
  for (const parameter of declared) {
    const field = `parameters.${parameter.name}`;
    const value = given[parameter.name] === undefined ? parameter.default : valueOf(given[parameter.name], field);
    if (value === null) {
      if (parameter.required) throw new InvalidArgumentError(`${field} is required`, field);
      continue;
    }
    requireMatch(parameter, value, field);
    values[parameter.name] = value;
  }
  return values;
}

/** The values of a run nobody gave any: the defaults (a job that runs by itself has one for each required parameter). */
export function defaultValuesOf(declared: readonly JobParameter[]): ParameterValues {
  const values: ParameterValues = {};
  for (const parameter of declared) if (parameter.default !== null) values[parameter.name] = parameter.default;
  return values;
}

/** The environment variable a parameter reaches the command as. */
export function parameterVariable(name: string): string {
  return `ORBIT_PARAM_${name}`;
}

function requireMatch(parameter: JobParameter, value: string, field: string): void {
  // a pattern stored before RE2 may not compile: the run is refused, naming the job's pattern
  const pattern = parameter.pattern === null ? null : compiled(parameter.pattern, `The pattern of ${field}`, field);
  if (pattern !== null && !pattern.matches(value)) {
    throw new InvalidArgumentError(`${field} must match ${parameter.pattern}`, field);
  }
}

/**
 * RE2 (the re2js port), never RegExp: an operator's pattern runs on values of up to 4 KiB, and a
 * backtracking engine takes exponential time on a pattern such as `([a-z0-9]+\.?)+`, which
 * freezes the node. RE2 matches in time linear in the value, and refuses what would need
 * backtracking (backreferences, lookaround). `matches` anchors both ends: a pattern matches the
 * whole value, never a part of it.
 */
function compiled(pattern: string, subject: string, field: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    if (!(error instanceof RE2JSSyntaxException)) throw error;
    const reason = error.message.replace(/^error parsing regexp: /, '');
    throw new InvalidArgumentError(
      `${subject} is not a regular expression Orbit accepts (RE2 syntax, without backreferences or lookaround): ${reason}`,
      field,
    );
  }
}

function valueOf(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a string`, field);
  if (Buffer.byteLength(value, 'utf8') > PARAMETER_LIMITS.valueMaxBytes) {
    throw new InvalidArgumentError(`${field} must be at most ${PARAMETER_LIMITS.valueMaxBytes} bytes`, field);
  }
  // an environment variable cannot hold a NUL; PostgreSQL's text cannot either
  if (value.includes('\u0000')) throw new InvalidArgumentError(`${field} must not contain NUL characters`, field);
  return value;
}

function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max || value.includes('\u0000')) {
    throw new InvalidArgumentError(`${field} must be a string of at most ${max} characters`, field);
  }
  return value;
}

function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new InvalidArgumentError(`${field} must be a boolean`, field);
  return value;
}
