import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { FieldsRefusedException } from './validation.js';

const MAX_DEPTH = 16;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Runs before validation, on request bodies only, without recursion: a body that is no JSON
 * object, or is nested deeper than any Orbit request, is refused before class-transformer
 * recurses into it, and keys that would otherwise be dropped silently (`__proto__`,
 * `constructor`) are named in a 400.
 */
@Injectable()
export class BodyShapePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body' || value === undefined) return value;
    // Fastify reads any JSON value; every Orbit body is an object (Express's parser refused the rest)
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new BadRequestException('Request body must be a JSON object');
    }
    // each node with its depth and its path, which the error answer gives as the refused key's field
    const pending: Array<[unknown, number, string]> = [[value, 1, '']];
    while (pending.length > 0) {
      const [node, depth, path] = pending.pop()!;
      if (node === null || typeof node !== 'object') continue;
      if (depth > MAX_DEPTH) throw new BadRequestException(`Request body is nested deeper than ${MAX_DEPTH} levels`);
      for (const key of Object.keys(node)) {
        const field = path ? `${path}.${key}` : key;
        if (FORBIDDEN_KEYS.has(key))
          throw new FieldsRefusedException([{ field, message: `${key} is not an accepted field` }]);
        pending.push([(node as Record<string, unknown>)[key], depth + 1, field]);
      }
    }
    return value;
  }
}
