import { parse } from 'yaml';
import { suggestion } from '../shared/domain/did-you-mean.js';
import { type ApiClient, CliError } from './api-client.js';

/** The part of an OpenAPI 3.0 schema that says what a value is. */
interface Schema {
  type?: string;
  nullable?: boolean;
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

/** The fields a request body takes, each with its schema: what `--set field=value` may name. */
export type BodyFields = Record<string, Schema>;

/**
 * The fields of an endpoint's JSON body, from the API's own OpenAPI document (what Swagger UI
 * shows): the CLI knows each field's type from the Orbit it talks to, fields added later included.
 */
export async function bodyFields(api: ApiClient, method: string, path: string): Promise<BodyFields> {
  const document = await api.get<OpenApiDocument>('/docs-json');
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    const name = schema?.$ref?.replace('#/components/schemas/', '');
    return name ? document.components?.schemas?.[name] : schema;
  };
  const body = document.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
  const properties = resolve(body)?.properties;
  if (!properties) throw new CliError(`Orbit's API document describes no body for ${method} ${path}`);
  return properties;
}

/** What a schema admits: a JSON type, or 'object' for a reference to one; undefined when it does not say. */
function typeOf(schema: Schema): string | undefined {
  if (schema.type) return schema.type;
  if (schema.$ref || schema.allOf) return 'object';
  return undefined;
}

/**
 * `--set field=value` as the field's type reads it: the text as it is for a string (`@hourly`,
 * `*\/5 * * * *`, `true` as a command), a number, `true`/`false`, or YAML (JSON is YAML) for a
 * list or an object. `null` is null where the field takes null. Anything that does not fit the
 * field is refused here, naming the field, before the API is asked.
 */
export function typedValue(field: string, text: string, fields: BodyFields): unknown {
  const schema = fields[field];
  if (!schema) {
    throw new CliError(`--set ${field}: there is no such field${suggestion(field, Object.keys(fields))}`);
  }
  if (schema.nullable && text === 'null') return null;
  const refuse = (what: string): never => {
    throw new CliError(`--set ${field}=${text}: ${field} takes ${what}${schema.nullable ? ' (or null)' : ''}`);
  };
  switch (typeOf(schema)) {
    case 'number':
    case 'integer': {
      const number = Number(text);
      if (text.trim() === '' || !Number.isFinite(number)) return refuse('a number');
      if (schema.type === 'integer' && !Number.isInteger(number)) return refuse('a whole number');
      return number;
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      return refuse('true or false');
    case 'array':
    case 'object': {
      const list = typeOf(schema) === 'array';
      const example = list ? `'[a, b]' or '["a", "b"]'` : `'{key: value}' or '{"key": "value"}'`;
      let value: unknown;
      try {
        value = parse(text);
      } catch (error) {
        return refuse(`${list ? 'a list' : 'an object'} in YAML or JSON, such as ${example} (${firstLine(error)})`);
      }
      const fits = list ? Array.isArray(value) : value !== null && typeof value === 'object' && !Array.isArray(value);
      return fits ? value : refuse(`${list ? 'a list' : 'an object'} in YAML or JSON, such as ${example}`);
    }
    default:
      return text;
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
