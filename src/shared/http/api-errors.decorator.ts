import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed id, query or body, or a value that breaks a rule (the message names the field)',
  401: 'No bearer token, or an unknown or revoked one',
  403: "The token's role does not include the one this endpoint needs",
  429: 'Too many requests from this token (or address) this minute, or too many failed sign-ins from this address; Retry-After says when to try again',
  404: 'No such job or execution',
  409: 'Illegal transition, duplicate name, or a concurrent change (the message says which)',
};

/**
 * Documents the error answers an endpoint can give, all shaped `{statusCode, message, error}`;
 * every endpoint behind a token can also answer 401, 403 and 429.
 */
export function ApiErrors(...statuses: Array<400 | 404 | 409>) {
  return applyDecorators(
    ...[...statuses, 401, 403, 429].map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto }),
    ),
  );
}
