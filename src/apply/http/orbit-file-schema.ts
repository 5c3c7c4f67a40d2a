import type { OpenAPIObject } from '@nestjs/swagger';
import { OrbitFileDto } from './dto/orbit-file.dto.js';

/** Where the schema is served: without a token (it holds no secret; editors and the CLI fetch it), rate-limited. */
export const ORBIT_FILE_SCHEMA_PATH = '/schemas/orbit-file.json';

type Schema = Record<string, unknown>;

/**
 * The JSON Schema (2020-12) of an orbit file, derived from the API's own OpenAPI document: the
 * entries are the request DTOs of POST /jobs and POST /channels, so the file's fields, their
 * enums and ranges are the API's. Objects refuse unknown fields, as the API does.
 */
export function orbitFileSchema(document: OpenAPIObject): Schema {
  const { $defs, ...root } = jsonSchemaOf(document, OrbitFileDto.name);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Orbit file (orbit.yaml)',
    description: 'The channels and jobs Orbit should have: `orbit apply -f orbit.yaml`',
    ...root,
    $defs,
  };
}

/**
 * The schema of the OpenAPI document named `schemaName` as JSON Schema (2020-12), with each schema it
 * refers to in `$defs`: the orbit file's, and the job form's in the dashboard, which checks a
 * job by the rules the API publishes before it sends it.
 */
export function jsonSchemaOf(document: OpenAPIObject, schemaName: string): Schema & { $defs: Record<string, Schema> } {
  const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const defs: Record<string, Schema> = {};
  const named = (name: string) => {
    const schema = components[name];
    if (!schema) throw new Error(`The OpenAPI document has no schema ${name}`);
    return schema;
  };
  const visit = (name: string) => {
    if (name in defs) return;
    defs[name] = {};
    defs[name] = convert(named(name), visit);
  };
  const root = convert(named(schemaName), visit);
  return { ...root, $defs: Object.fromEntries(Object.entries(defs).sort(([a], [b]) => a.localeCompare(b))) };
}

/** One OpenAPI 3.0 schema as JSON Schema: $refs to $defs, nullable as a type, example as examples. */
function convert(schema: Schema, visit: (name: string) => void): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      const name = value.replace('#/components/schemas/', '');
      visit(name);
      out.$ref = `#/$defs/${name}`;
    } else if (key === 'example') {
      out.examples = [value];
    } else if (key === 'nullable') {
      continue;
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([field, property]) => [field, convert(property, visit)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && typeof value === 'object') {
      out[key] = convert(value as Schema, visit);
    } else if (key === 'allOf' || key === 'oneOf' || key === 'anyOf') {
      out[key] = (value as Schema[]).map((part) => convert(part, visit));
    } else {
      out[key] = value;
    }
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  if (schema.nullable === true) {
    return typeof out.type === 'string' ? { ...out, type: [out.type, 'null'] } : { anyOf: [out, { type: 'null' }] };
  }
  return out;
}
