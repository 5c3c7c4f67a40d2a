import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** Request validation: unknown fields are refused, not stripped; every message names its field. */
export function validationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => new BadRequestException(flatten(errors).join('; ')),
  });
}

export function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => {
      if (rule === 'whitelistValidation') return `${path} is not an accepted field`;
      return message.startsWith(error.property) ? message.replace(error.property, path) : `${path}: ${message}`;
    });
    return [...own, ...flatten(error.children ?? [], path)];
  });
}
