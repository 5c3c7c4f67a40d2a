/**
 * Base of every error the domain raises on purpose; the HTTP layer maps each kind to one status.
 * `field` names the input the error is about (a path such as `triggers[0].after`), when there is one:
 * the error answer carries it, so a client shows the message beside that input.
 */
export abstract class DomainError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** An action that the entity's current state does not allow (HTTP 409). */
export class IllegalTransitionError extends DomainError {}

/** A value that breaks a rule of the domain (HTTP 400). */
export class InvalidArgumentError extends DomainError {}

/** The addressed thing does not exist (HTTP 404). */
export class NotFoundError extends DomainError {}

/** The request clashes with the stored state: a duplicate, a stale write, a row in use (HTTP 409). */
export class ConflictError extends DomainError {}

/** A conditional write found the row changed since it was read (HTTP 409 if it cannot be retried). */
export class StaleWriteError extends ConflictError {}

/** The caller may see the thing but not do this to it (HTTP 403). */
export class ForbiddenError extends DomainError {}
