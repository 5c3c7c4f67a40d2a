import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { HealthCheck } from '@nestjs/terminus';

const indicators = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] } },
    additionalProperties: true,
  },
  example: { database: { status: 'up' }, migrations: { status: 'up' }, worker: { status: 'up', lastPassMsAgo: 120 } },
};

function answer(status: 'ok' | 'error') {
  return {
    type: 'object',
    required: ['status', 'details'],
    properties: {
      status: { type: 'string', enum: status === 'ok' ? ['ok'] : ['error', 'shutting_down'], example: status },
      info: { ...indicators, nullable: true },
      error: { ...indicators, nullable: true },
      details: indicators,
    },
  };
}

/**
 * A terminus health check, documented by Orbit itself: terminus documents it only when its
 * optional `require` of @nestjs/swagger succeeds, which depends on the module loader (Jest's
 * fails on Node 24), so the API's document would differ between a test and a server.
 */
export function HealthEndpoint(): MethodDecorator {
  return applyDecorators(
    HealthCheck({ noCache: true, swaggerDocumentation: false }),
    ApiOkResponse({ description: 'Every check is up', schema: answer('ok') }),
    ApiServiceUnavailableResponse({ description: 'A check is down', schema: answer('error') }),
  );
}
