// The contract's error codes (§2.5) and the one domain error. Services, the matching engine and the
// writer throw DomainError; they know nothing of HTTP. http/errors.ts renders any of them as
// problem+json. Being plain data (code, detail, extra), a DomainError crosses to and from the
// writer thread unchanged.

/** Each code with the status and title the contract gives it. */
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
  console_origin_refused: [403, "Request from another origin refused"],
  console_session_required: [403, "Console session required"],
  not_found: [404, "Not found"],
  activation_code_unknown: [404, "Activation code unknown"],
  order_not_found: [404, "Order not found"],
  event_not_found: [404, "Event not found"],
  webhook_not_found: [404, "Webhook endpoint not found"],
  webhook_message_not_found: [404, "Webhook message not found"],
  console_session_not_found: [404, "Console session not found"],
  method_not_allowed: [405, "Method not allowed"],
  idempotency_key_in_use: [409, "Idempotency key in use"],
  order_already_matched: [409, "Order already matched"],
  already_matched: [409, "Already matched"],
  order_cancelled: [409, "Order cancelled"],
  event_is_duplicate: [409, "Event is a duplicate"],
  unique_amount_unavailable: [409, "Unique amount unavailable"],
  webhook_limit_reached: [409, "Webhook endpoint limit reached"],
  activation_code_used: [410, "Activation code used"],
  activation_code_expired: [410, "Activation code expired"],
  console_link_invalid: [410, "Sign-in link used or expired"],
  payload_too_large: [413, "Payload too large"],
  unsupported_media_type: [415, "Unsupported media type"],
  idempotency_key_reused: [422, "Idempotency key reused"],
  rate_limited: [429, "Too many requests"],
  internal_error: [500, "Internal server error"],
  service_unavailable: [503, "Service unavailable"],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  /** JSON pointer of the field, e.g. /orders/3/amount. */
  field: string;
  message: string;
}

/** A refusal the contract names: rendered by http/errors.ts with the status of its code. */
export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail ?? ERROR_CODES[code][1]);
    this.status = ERROR_CODES[code][0];
  }
}
