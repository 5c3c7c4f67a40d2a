import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  IllegalTransitionError,
  InvalidArgumentError,
  NotFoundError,
} from '../domain/domain-errors.js';
import { BODY_LIMIT } from './body-limit.js';
import { requestRef } from './request-ref.js';
import { FieldsRefusedException, type FieldMistake } from './validation.js';

const STATUS_OF: Array<[new (...args: never[]) => DomainError, HttpStatus]> = [
  [IllegalTransitionError, HttpStatus.CONFLICT],
  [ConflictError, HttpStatus.CONFLICT],
  [InvalidArgumentError, HttpStatus.BAD_REQUEST],
  [NotFoundError, HttpStatus.NOT_FOUND],
  [ForbiddenError, HttpStatus.FORBIDDEN],
];

/** What an error answer says: its status, its message, and the fields the message is about. */
interface Refusal {
  statusCode: number;
  message: string;
  field?: string;
  errors?: readonly FieldMistake[];
}

/**
 * The one place where errors become HTTP answers, always `{statusCode, message, error}` (with
 * `field` and `errors` when the message is about fields): domain errors by kind, Nest's HTTP
 * exceptions as they are, anything else a 500 that shows no internals.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof ServiceUnavailableException && isHealthReport(exception.getResponse())) {
      reply.status(503).send(exception.getResponse()); // a health check's own report, as terminus shapes it
      return;
    }
    const { statusCode, message, ...fields } = this.describe(
      exception,
      host.switchToHttp().getRequest<FastifyRequest>(),
    );
    reply.status(statusCode).send({ ...errorBody(statusCode, message), ...fields });
  }

  private describe(exception: unknown, request: FastifyRequest): Refusal {
    if (exception instanceof DomainError) {
      const status = STATUS_OF.find(([kind]) => exception instanceof kind)?.[1] ?? HttpStatus.BAD_REQUEST;
      return { statusCode: status, message: exception.message, ...(exception.field && { field: exception.field }) };
    }
    if (exception instanceof FieldsRefusedException) {
      return { statusCode: exception.getStatus(), message: exception.message, ...fieldsOf(exception.mistakes) };
    }
    // Fastify's own refusals (body parsing, the router), which Nest wraps in an HttpException
    const refusal = parserRefusal((exception as { cause?: { code?: unknown } })?.cause?.code);
    if (refusal) return refusal;
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      const raw = typeof body === 'string' ? body : (body as { message?: unknown }).message;
      const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
      return { statusCode: exception.getStatus(), message };
    }
    if (databaseUnavailable(exception)) {
      this.logger.warn({
        req: requestRef(request),
        msg: `Database unavailable: ${exception instanceof Error ? exception.message : String(exception)}`,
      });
      return { statusCode: HttpStatus.SERVICE_UNAVAILABLE, message: 'The database is unavailable; try again shortly' };
    }
    this.logger.error({
      req: requestRef(request),
      msg: exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    });
    return { statusCode: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal server error' };
  }
}

/** The one shape of every error answer. */
export function errorBody(statusCode: number, message: string): { statusCode: number; message: string; error: string } {
  return { statusCode, message, error: reasonPhrase(statusCode) };
}

/**
 * `field` when every mistake is about the same field; `errors`, each mistake with its field, when
 * the message joins several.
 */
function fieldsOf(mistakes: readonly FieldMistake[]): Pick<Refusal, 'field' | 'errors'> {
  const fields = new Set(mistakes.map((mistake) => mistake.field));
  return {
    ...(fields.size === 1 && { field: mistakes[0]!.field }),
    ...(mistakes.length > 1 && { errors: mistakes.map(({ field, message }) => ({ field, message })) }),
  };
}

/** Fastify's error codes for a body it will not read, with messages that say what to send instead. */
function parserRefusal(code: unknown): { statusCode: number; message: string } | undefined {
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { statusCode: HttpStatus.BAD_REQUEST, message: 'Request body is not valid JSON' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        statusCode: HttpStatus.BAD_REQUEST,
        message: 'Request body is empty but Content-Type is application/json',
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        statusCode: HttpStatus.PAYLOAD_TOO_LARGE,
        message: `Request body is larger than ${BODY_LIMIT / 1024} KiB`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        statusCode: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
        message: 'Request body must be JSON, sent with Content-Type: application/json',
      };
    default:
      return undefined;
  }
}

/** Connection refused or lost, the server shutting down or starting: the request may work again soon. */
function databaseUnavailable(exception: unknown): boolean {
  const error = ((exception as { driverError?: unknown })?.driverError ?? exception) as {
    code?: unknown;
    message?: unknown;
  };
  const code = typeof error?.code === 'string' ? error.code : '';
  const message = typeof error?.message === 'string' ? error.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03'].includes(code) ||
    code.startsWith('08') ||
    code === '53300' || // too many connections
    /Connection terminated|timeout exceeded when trying to connect|Connection ended|not currently accepting connections/i.test(
      message,
    )
  );
}

function isHealthReport(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'details' in body && 'status' in body;
}

function reasonPhrase(status: number): string {
  const name = HttpStatus[status];
  return name
    ? name
        .toLowerCase()
        .split('_')
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join(' ')
    : 'Error';
}
