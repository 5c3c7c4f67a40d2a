/**
 * What is wrong with the shape of an error answer, or undefined when nothing is: it is
 * `{statusCode, message, error}` with this status, plus `field` (a path) when its message is about
 * one field, and `errors` (each `{field, message}`) when its message joins several mistakes.
 */
export function errorBodyProblem(body: unknown, statusCode: number): string | undefined {
  if (typeof body !== 'object' || body === null) return 'the body must be an object';
  const { statusCode: status, message, error, field, errors, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    return `the body must hold no other key than field and errors: ${Object.keys(rest)}`;
  if (status !== statusCode) return `statusCode must be ${statusCode}`;
  if (typeof message !== 'string' || typeof error !== 'string') return 'message and error must be strings';
  if (field !== undefined && typeof field !== 'string') return 'field must be a path';
  if (errors === undefined) return undefined;
  const mistakes = errors as Array<Record<string, unknown>>;
  if (!Array.isArray(mistakes) || mistakes.length < 2) return 'errors must list several mistakes';
  if (mistakes.some((m) => Object.keys(m).sort().join() !== 'field,message' || typeof m.field !== 'string')) {
    return 'each of errors must be {field, message}';
  }
  if (mistakes.map((m) => m.message).join('; ') !== message) return "errors must be the message's parts, in order";
  if (field !== undefined && mistakes.some((m) => m.field !== field)) return 'field must be the field of every mistake';
  return undefined;
}

/** An error answer of this status and reason (and this message, when given), in the shape above. */
export function expectErrorBody(body: unknown, statusCode: number, error: string, message?: string): void {
  expect(errorBodyProblem(body, statusCode)).toBeUndefined();
  expect(body).toMatchObject({ statusCode, error, message: message ?? expect.any(String) });
}
