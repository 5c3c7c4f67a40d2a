import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';

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
    const pending: Array<[unknown, number]> = [[value, 1]];
    while (pending.length > 0) {
      const [node, depth] = pending.pop()!;
      if (node === null || typeof node !== 'object') continue;
      if (depth > MAX_DEPTH) throw new BadRequestException(`Request body is nested deeper than ${MAX_DEPTH} levels`);
      for (const key of Object.keys(node)) {
        if (FORBIDDEN_KEYS.has(key)) throw new BadRequestException(`${key} is not an accepted field`);
        pending.push([(node as Record<string, unknown>)[key], depth + 1]);
      }
    }
    return value;
  }
}
