import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import {
  ConflictError,
  DomainError,
  IllegalTransitionError,
  InvalidArgumentError,
  NotFoundError,
} from '../domain/domain-errors.js';
import { requestRef } from './request-ref.js';

const STATUS_OF: Array<[new (...args: never[]) => DomainError, HttpStatus]> = [
  [IllegalTransitionError, HttpStatus.CONFLICT],
  [ConflictError, HttpStatus.CONFLICT],
  [InvalidArgumentError, HttpStatus.BAD_REQUEST],
  [NotFoundError, HttpStatus.NOT_FOUND],
];

/**
 * The one place where errors become HTTP answers, always `{statusCode, message, error}`:
 * domain errors by kind, Nest's HTTP exceptions as they are, anything else a 500 that shows
 * no internals.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<{ status(code: number): { json(body: unknown): void } }>();
    if (exception instanceof ServiceUnavailableException && isHealthReport(exception.getResponse())) {
      response.status(503).json(exception.getResponse()); // a health check's own report, as terminus shapes it
      return;
    }
    const { statusCode, message } = this.describe(exception, host.switchToHttp().getRequest());
    response.status(statusCode).json({ statusCode, message, error: reasonPhrase(statusCode) });
  }

  private describe(exception: unknown, request: object): { statusCode: number; message: string } {
    if (exception instanceof DomainError) {
      const status = STATUS_OF.find(([kind]) => exception instanceof kind)?.[1] ?? HttpStatus.BAD_REQUEST;
      return { statusCode: status, message: exception.message };
    }
    // body-parser's failures, whether Nest wrapped them in an HttpException or not
    const parserError = [exception, (exception as { cause?: unknown })?.cause].find(
      (e): e is { type: string } => typeof (e as { type?: unknown })?.type === 'string',
    );
    if (parserError?.type === 'entity.parse.failed') {
      return { statusCode: HttpStatus.BAD_REQUEST, message: 'Request body is not valid JSON' };
    }
    if (parserError?.type === 'entity.too.large') {
      return { statusCode: HttpStatus.PAYLOAD_TOO_LARGE, message: 'Request body is larger than 64 KiB' };
    }
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
