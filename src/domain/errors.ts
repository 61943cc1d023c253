import type { TransactionJson } from './transactionJson.js';
import { inWords } from './validation.js';

/** The error codes of SPEC B5 and the HTTP status each one maps to. */
export const ERROR_STATUS = {
  invalid_json: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** SPEC D4: a rating link of a resolve the ticket has since reopened from (decision 082). */
  gone: 410,
  /** SPEC C5: a reply or note on a ticket that received correspondence since the writer loaded it. */
  stale: 409,
  too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  /** Decision 042: the store cannot write (a full disk, a read-only store); answered with Retry-After. */
  storage_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export interface ErrorDetail {
  path: string;
  message: string;
  /** SPEC D3: a refused status change names the statuses the ticket may move to. */
  allowed?: string[];
}

/** A failure the caller can act on; thrown anywhere, answered once by the app's onError. */
export class AppError extends Error {
  readonly status: number;
  /** `extra`: more members of the JSON error object (a `stale` error's transactions). */
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

/**
 * SPEC C5, docs/decisions/038: the ticket received correspondence after the writer loaded it.
 * Carries every entry newer than the writer's marker, as the history shows them to the writer.
 */
export class StaleError extends AppError {
  constructor(
    message: string,
    readonly transactions: TransactionJson[],
  ) {
    super('stale', message, undefined, { transactions });
  }
}

/**
 * A refusal that passes with time (a brake's 429, a 413 of a daily allowance): answered with
 * `Retry-After: <retryAfterSec>` (decision 041).
 */
export class TryLater extends AppError {
  constructor(
    code: 'rate_limited' | 'too_large',
    message: string,
    readonly retryAfterSec: number,
  ) {
    super(code, message);
  }
}

/**
 * SPEC D6: a Take (owner ← me) of a ticket another agent owns, not confirmed for that owner. The
 * change is made only when sent again with `confirm_owner_id` = the owner asked about; if the
 * owner changed meanwhile, the question is asked again about the new one.
 */
export class TakeFromError extends AppError {
  constructor(
    readonly ticketId: number,
    readonly owner: { id: number; name: string },
  ) {
    super(
      'conflict',
      `Take from ${owner.name}? Ticket #${ticketId} is owned by ${owner.name}: nothing was changed. Send the change again with confirm_owner_id: ${owner.id} to take it from them.`,
    );
  }
}

/**
 * SPEC D3 (decision 076): a change sent to a merged ticket (a tombstone). 409 with `merged_into`,
 * the ticket it lives on now: nothing was changed.
 */
export class MergedError extends AppError {
  constructor(
    readonly ticketId: number,
    readonly mergedInto: number,
  ) {
    super(
      'conflict',
      `Ticket #${ticketId} was merged into #${mergedInto}: change #${mergedInto} instead (nothing was changed)`,
      undefined,
      { merged_into: mergedInto },
    );
  }
}

export const notFound = (what: string, id?: number | string) =>
  new AppError('not_found', id === undefined ? `${what} not found` : `${what} ${id} not found`);
export const forbidden = (message = 'You are not allowed to do this') => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);
/** A 422 naming the offending field, in words with its label (SPEC D6: "Priority must be between 0 and 100"). */
export const invalid = (path: string, message: string) => {
  const words = inWords(path, message);
  return new AppError('validation_failed', words, [{ path, message: words }]);
};

/** SPEC D6: a refusal's details in words, each naming its field by label; and the one message they make. */
export function detailsInWords(details: ErrorDetail[]): ErrorDetail[] {
  return details.map((d) => ({ ...d, message: inWords(d.path, d.message) }));
}
export const summaryOf = (details: ErrorDetail[]) =>
  details.length === 1 ? details[0].message : details.map((d) => d.message).join('; ');
