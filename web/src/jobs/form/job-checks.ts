import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { api, ApiError, ok, type JobInput, type Mistake } from '../../api/client';
import published from '../../api/create-job.schema.json';

/*
 * A job is checked in the browser before it is sent, so that Save names every mistake at once:
 * by the rules the API publishes (its OpenAPI document, as JSON Schema: web/src/api/create-job.schema.json,
 * which a test keeps equal to the API's) and by the API's own parser of schedules. The API still
 * has the last word: what these cannot judge (a name taken, an unknown channel) it refuses, and
 * the form shows that too. The messages are worded as the API words the same mistakes.
 */

const SCHEMA = published as Schema;
// interpreted, never compiled to code: the dashboard's Content-Security-Policy allows no eval
const validator = new Validator(SCHEMA, '2020-12', false);

/** Every rule of the API's published schema that the body breaks, by the path of its field. */
export function schemaMistakes(body: JobInput): Mistake[] {
  const { valid, errors } = validator.validate(body);
  if (valid) return [];
  const mistakes = new Map<string, Mistake>();
  for (const unit of errors) {
    const mistake = mistakeOf(unit);
    if (mistake) mistakes.set(`${mistake.field}\n${mistake.message}`, mistake);
  }
  return [...mistakes.values()];
}

/**
 * What the API's parser says of the schedule (`GET /schedules/preview` parses as a job does), at
 * the job's fields. Its answer names its own parameters: `cron` is the job's `cronExpression`.
 * Anything but a 400 says nothing of the schedule: the save's answer will.
 */
export async function scheduleMistakes(cron: string, timezone: string): Promise<Mistake[]> {
  try {
    await ok(api.GET('/schedules/preview', { params: { query: { cron, timezone, count: 1 } } }));
    return [];
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) return [];
    return error.mistakes.flatMap(({ field, message }) => {
      if (field === 'cron') return [{ field: 'cronExpression', message: message.replace(/^cron\b/, 'cronExpression') }];
      return field === 'timezone' ? [{ field, message }] : [];
    });
  }
}

/** A rule broken, in words, at its field; a unit that only says a part of it failed has none. */
function mistakeOf(unit: OutputUnit): Mistake | undefined {
  const field = pathOf(unit.instanceLocation);
  const rule = ruleAt(unit.keywordLocation);
  const types = [rule.type ?? []].flat();
  const nullOr = types.includes('null') ? 'null or ' : '';
  const range =
    rule.minimum !== undefined && rule.maximum !== undefined ? ` from ${rule.minimum} to ${rule.maximum}` : '';
  switch (unit.keyword) {
    case 'type':
    case 'minimum':
    case 'maximum':
      if (types.includes('integer')) return { field, message: `${field} must be ${nullOr}an integer${range}` };
      return unit.keyword === 'type'
        ? { field, message: `${field} must be ${nullOr}${TYPE_WORDS[types[0]!]}` }
        : undefined;
    case 'minLength':
      return {
        field,
        message:
          rule.minLength === 1
            ? `${field} must not be blank`
            : `${field} must be at least ${rule.minLength} characters`,
      };
    case 'maxLength':
      return { field, message: `${field} must be at most ${rule.maxLength} characters` };
    case 'pattern':
      return { field, message: `${field} must match ${rule.pattern}` };
    case 'enum':
      return { field, message: `${field} must be one of ${rule.enum!.join(', ')}` };
    case 'maxItems':
      return { field, message: `${field} must have at most ${rule.maxItems} entries` };
    default:
      return undefined;
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

/** `parameters[0].name` of `#/parameters/0/name`, as the API names a field. */
function pathOf(instanceLocation: string): string {
  return instanceLocation
    .replace(/^#\/?/, '')
    .split('/')
    .reduce(
      (path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment),
      '',
    );
}

/** The schema that holds the keyword at `keywordLocation` (`#/properties/parameters/items/$ref/properties/name/pattern`). */
function ruleAt(keywordLocation: string): Schema {
  const segments = keywordLocation.replace(/^#\/?/, '').split('/').slice(0, -1);
  return segments.reduce<Schema>(
    (schema, segment) =>
      segment === '$ref'
        ? (SCHEMA.$defs as Record<string, Schema>)[schema.$ref!.replace('#/$defs/', '')]!
        : (schema[segment] as Schema),
    SCHEMA,
  );
}
