// HTTP side of errors: the problem+json renderer (RFC 9457, contract §2.5) for any DomainError, and
// ApiError for refusals made at the HTTP edge that carry headers. Clients branch on `code`.

import { DomainError, ERROR_CODES, type ErrorCode } from "../errors";

export { DomainError, ERROR_CODES, type ErrorCode, type FieldError } from "../errors";


/** A DomainError with the HTTP headers of its answer (WWW-Authenticate, Retry-After): for the HTTP edge. */
export class ApiError extends DomainError {
  constructor(
    code: ErrorCode,
    detail?: string,
    extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(code, detail, extra);
  }
}

export const statusOf = (code: ErrorCode): number => ERROR_CODES[code][0];

/** Seconds a client is asked to wait after `service_unavailable` because the database was busy. */
export const BUSY_RETRY_AFTER_S = 2;

/**
 * SQLite gave up waiting for the write lock (busy_timeout): another write held it longer, e.g. an
 * order sync that re-evaluates a large backlog. Nothing was written; the same request later
 * succeeds. Answered 503 service_unavailable with Retry-After, not as a bug (500).
 */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"));
}

export function problemBody(err: DomainError, requestId: string): Record<string, unknown> {
  const [status, title] = ERROR_CODES[err.code];
  // contract §2.5: a 5xx body carries only code, title, status and request_id.
  // (Not even `type`: "only" is literal, and clients branch on `code`.)
  if (status >= 500) return { title, status, code: err.code, request_id: requestId };
  return {
    type: `urn:cuadra:error:${err.code}`,
    title,
    status,
    detail: err.detail ?? title,
    code: err.code,
    request_id: requestId,
    ...err.extra,
  };
}

export function problemResponse(err: DomainError, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": "application/problem+json", ...(err instanceof ApiError ? err.headers : {}) };
  if (err.status === 401 && !headers["www-authenticate"]) {
    // Device and connector auth set their own scheme; this is only a fallback.
    headers["www-authenticate"] = "Bearer";
  }
  return new Response(JSON.stringify(problemBody(err, requestId)), { status: err.status, headers });
}
