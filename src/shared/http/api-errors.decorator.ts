import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed id, query or body, or a value that breaks a rule (the message names the field)',
  404: 'No such job or execution',
  409: 'Illegal transition, duplicate name, or a concurrent change (the message says which)',
};

/** Documents the error answers an endpoint can give, all shaped `{statusCode, message, error}`. */
export function ApiErrors(...statuses: Array<400 | 404 | 409>) {
  return applyDecorators(
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto })),
  );
}
