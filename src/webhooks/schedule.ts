// When a webhook message is attempted again, and when an endpoint is disabled (contract §15). Pure:
// the clock's `now` and a random number in [0, 1) come from the caller, so tests drive both.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Delays before attempts 2…8 (the first is at once). */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;
/** Eight attempts in all; after the eighth failure the message is `failed`. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Each delay varies by up to ±10 % so that many failed messages do not come back at once. */
export const JITTER = 0.1;
/** A Retry-After longer than this is not honoured (the schedule applies). */
export const MAX_RETRY_AFTER_MS = HOUR;
/** An endpoint with no success for this long while its messages fail is disabled (`failing`). */
export const FAILING_DISABLE_MS = 5 * DAY;
/** After a rotation the previous secret keeps signing this long. */
export const PREVIOUS_SECRET_MS = DAY;
/** Messages are kept this long (then removed in bounded steps). */
export const MESSAGE_RETENTION_MS = 30 * DAY;
/** A receiver has this long to answer. */
export const DELIVERY_TIMEOUT_MS = 15 * SECOND;

/** What one attempt got. */
export type AttemptResult =
  | { kind: "answered"; status: number; retryAfterMs: number | null }
  | { kind: "error"; error: string };

export const succeeded = (r: AttemptResult): boolean => r.kind === "answered" && r.status >= 200 && r.status < 300;

/**
 * `Retry-After` as a delay in ms (seconds, or an HTTP date), or null when absent or unreadable.
 * A date in the past is a delay of 0.
 */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  if (!Number.isFinite(at) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, at - now);
}

/** The scheduled delay before attempt `attempts + 1` (attempts ≥ 1 already made), jittered by ±10 %. */
export function retryDelay(attempts: number, random: number): number {
  const base = RETRY_DELAYS_MS[attempts - 1]!;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}

export interface AttemptOutcome {
  message: { status: "pending" | "succeeded" | "failed"; nextAttemptAt: number | null };
  /** What changes on the endpoint: its failing clock, or it is disabled. */
  endpoint: { failingSince: number | null; disable: "gone" | "failing" | null };
}

/**
 * The state after attempt number `attempts` (counting this one) of a message whose endpoint has
 * been failing since `failingSince` (null: its last attempt succeeded, or it never had one).
 */
export function afterAttempt(result: AttemptResult, attempts: number, failingSince: number | null, now: number, random: number): AttemptOutcome {
  if (succeeded(result)) {
    return { message: { status: "succeeded", nextAttemptAt: null }, endpoint: { failingSince: null, disable: null } };
  }
  const since = failingSince ?? now;
  const disable = result.kind === "answered" && result.status === 410 ? "gone" : now - since >= FAILING_DISABLE_MS ? "failing" : null;
  if (attempts >= MAX_ATTEMPTS) return { message: { status: "failed", nextAttemptAt: null }, endpoint: { failingSince: since, disable } };
  let delay = retryDelay(attempts, random);
  // contract §15: a 429 or 503 with Retry-After of at most an hour delays the next attempt to at least that.
  if (result.kind === "answered" && (result.status === 429 || result.status === 503) && result.retryAfterMs !== null && result.retryAfterMs <= MAX_RETRY_AFTER_MS) {
    delay = Math.max(delay, result.retryAfterMs);
  }
  return { message: { status: "pending", nextAttemptAt: now + delay }, endpoint: { failingSince: since, disable } };
}
