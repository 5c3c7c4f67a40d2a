import { applyDecorators } from '@nestjs/common';
import { IsISO8601, Matches } from 'class-validator';

/** Ends in Z or an offset: an instant, not a local time that a server's zone would have to complete. */
const WITH_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;

/** A string field that must be an ISO 8601 instant (date, time and offset); the message names the field. */
export function IsInstant(field: string) {
  const message = `${field} must be an ISO 8601 instant with an offset, for example 2026-12-01T09:00:00Z`;
  return applyDecorators(
    IsISO8601({ strict: true, strictSeparator: true }, { message }),
    Matches(WITH_OFFSET, { message }),
  );
}
