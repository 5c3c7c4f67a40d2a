import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { suggestion } from '../domain/did-you-mean.js';

/** Request validation: unknown fields are refused, not stripped; every message names its field. */
export function validationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // the DTO an error was found in names the fields it accepts; the value tells a missing field
    validationError: { target: true, value: true },
    exceptionFactory: (errors) => new FieldsRefusedException(fieldMistakes(errors)),
  });
}

/** One mistake of a request, with the path of the field it is about. */
export interface FieldMistake {
  field: string;
  message: string;
}

/**
 * A 400 for a request with mistakes in its fields: its message joins theirs with `; `, and the
 * error answer names each one's field (HttpErrorFilter).
 */
export class FieldsRefusedException extends BadRequestException {
  constructor(readonly mistakes: readonly FieldMistake[]) {
    super(mistakes.map((mistake) => mistake.message).join('; '));
  }
}

/**
 * One message per mistake, each naming its field by its path. An unknown field says which
 * accepted one it may have meant; a field that is missing says so once, rather than what its
 * value should have been (`command is required`, not `command must be a string`).
 */
export function fieldMistakes(errors: ValidationError[], prefix = ''): FieldMistake[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const rules = Object.entries(error.constraints ?? {});
    const missing = error.value === undefined && rules.length > 0 && !('whitelistValidation' in error.constraints!);
    const own = missing
      ? [`${path} is required`]
      : rules.map(([rule, message]) => {
          if (rule === 'whitelistValidation') {
            return `${path} is not an accepted field${suggestion(error.property, acceptedFields(error.target))}`;
          }
          return message.startsWith(error.property) ? message.replace(error.property, path) : `${path}: ${message}`;
        });
    return [...own.map((message) => ({ field: path, message })), ...fieldMistakes(error.children ?? [], path)];
  });
}

/** The fields a DTO declares: what its whitelist lets through. */
function acceptedFields(target: object | undefined): string[] {
  if (!target) return [];
  const rules = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return [...new Set(rules.map((rule) => rule.propertyName))];
}
