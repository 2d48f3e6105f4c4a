// The one error helper: machine codes, their HTTP status and title (contract §2.5), one error class
// and one renderer of RFC 9457 problem details. Clients branch on `code`.

export const ERROR_CODES = {
  invalid_request: [400, "Invalid request"],
  malformed_json: [400, "Malformed JSON"],
  unsupported_currency: [400, "Unsupported currency"],
  unsupported_event_kind: [400, "Unsupported event kind"],
  event_too_old: [400, "Event too old"],
  idempotency_key_missing: [400, "Idempotency-Key header missing"],
  idempotency_key_mismatch: [400, "Idempotency-Key does not match event_id"],
  invalid_cursor: [400, "Invalid cursor"],
  missing_auth_headers: [401, "Missing authentication headers"],
  unsupported_signature_alg: [401, "Unsupported signature algorithm"],
  timestamp_out_of_window: [401, "Timestamp out of window"],
  unknown_device: [401, "Unknown device"],
  invalid_signature: [401, "Invalid signature"],
  api_key_missing: [401, "API key missing"],
  api_key_invalid: [401, "API key invalid"],
  device_revoked: [403, "Device revoked"],
  license_suspended: [403, "License suspended"],
  device_limit_reached: [403, "Device limit reached"],
  test_mode_only: [403, "Test mode only"],
  not_found: [404, "Not found"],
  activation_code_unknown: [404, "Activation code unknown"],
  order_not_found: [404, "Order not found"],
  event_not_found: [404, "Event not found"],
  method_not_allowed: [405, "Method not allowed"],
  idempotency_key_in_use: [409, "Idempotency key in use"],
  order_already_matched: [409, "Order already matched"],
  already_matched: [409, "Already matched"],
  order_cancelled: [409, "Order cancelled"],
  event_is_duplicate: [409, "Event is a duplicate"],
  unique_amount_unavailable: [409, "Unique amount unavailable"],
  activation_code_used: [410, "Activation code used"],
  activation_code_expired: [410, "Activation code expired"],
  payload_too_large: [413, "Payload too large"],
  unsupported_media_type: [415, "Unsupported media type"],
  idempotency_key_reused: [422, "Idempotency key reused"],
  rate_limited: [429, "Too many requests"],
  internal_error: [500, "Internal server error"],
  service_unavailable: [503, "Service unavailable"],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  field: string;
  message: string;
}

/** Thrown anywhere; rendered by problemResponse(). `extra` members are merged into the body. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? ERROR_CODES[code][1]);
    this.status = ERROR_CODES[code][0];
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

export function problemBody(err: ApiError, requestId: string): Record<string, unknown> {
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

export function problemResponse(err: ApiError, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": "application/problem+json", ...err.headers };
  if (err.status === 401 && !headers["www-authenticate"]) {
    // Device and connector auth set their own scheme; this is only a fallback.
    headers["www-authenticate"] = "Bearer";
  }
  return new Response(JSON.stringify(problemBody(err, requestId)), { status: err.status, headers });
}
