// Token buckets held in the process (contract §2.7). One limiter per policy; keys are device ids,
// key ids or client addresses.
import type { Clock } from "../clock";
import { ApiError } from "./errors";

export interface BucketPolicy {
  /** Name shown in the RateLimit headers, e.g. "device". */
  name: string;
  /** Bucket size. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
}

/** contract §2.7, §4, §5, §8 */
export const POLICIES = {
  device: { name: "device", capacity: 30, refillPerSecond: 3 },
  connector: { name: "connector", capacity: 100, refillPerSecond: 50 },
  authFailure: { name: "auth_failure", capacity: 60, refillPerSecond: 1 },
  activationFailure: { name: "activation", capacity: 10, refillPerSecond: 1 / 60 },
} as const satisfies Record<string, BucketPolicy>;

export interface BucketState {
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (0 when one is). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_KEYS = 100_000;
/** Whole seconds are rounded up, but 1.00000002 s of float error is not a second more. */
const SECONDS_EPSILON = 1e-6;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  readonly policy: BucketPolicy;
  readonly enabled: boolean;

  /** `scale` multiplies size and refill (serve --rate-limit-scale); 0 turns limiting off. */
  constructor(
    policy: BucketPolicy,
    private readonly clock: Clock,
    scale = 1,
  ) {
    this.enabled = scale > 0;
    this.policy = { ...policy, capacity: policy.capacity * scale, refillPerSecond: policy.refillPerSecond * scale };
  }

  private bucket(key: string): Bucket {
    const now = this.clock.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_KEYS) this.sweep(now);
      b = { tokens: this.policy.capacity, at: now };
      this.buckets.set(key, b);
    } else {
      const elapsed = Math.max(0, now - b.at) / 1000;
      // Rounded to 1e-9 so float dust (59 s × 1/60 = 0.98333…4) cannot make a client that waited
      // exactly Retry-After seconds find 0.9999999 tokens and be refused again.
      b.tokens = Math.min(this.policy.capacity, Math.round((b.tokens + elapsed * this.policy.refillPerSecond) * 1e9) / 1e9);
      b.at = now;
    }
    return b;
  }

  /** Full buckets carry no information; drop them so address-keyed maps stay small. */
  private sweep(now: number): void {
    for (const [k, b] of this.buckets) {
      const tokens = b.tokens + (Math.max(0, now - b.at) / 1000) * this.policy.refillPerSecond;
      if (tokens >= this.policy.capacity) this.buckets.delete(k);
    }
  }

  private state(b: Bucket): BucketState {
    const rate = this.policy.refillPerSecond;
    return {
      remaining: Math.floor(b.tokens),
      resetSeconds: Math.max(0, Math.ceil((this.policy.capacity - b.tokens) / rate - SECONDS_EPSILON)),
      retryAfterSeconds: b.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / rate - SECONDS_EPSILON)),
    };
  }

  /** Looks without spending. */
  peek(key: string): BucketState {
    if (!this.enabled) return { remaining: Infinity, resetSeconds: 0, retryAfterSeconds: 0 };
    return this.state(this.bucket(key));
  }

  /** Spends one token if there is one; `ok` says whether there was. */
  take(key: string): BucketState & { ok: boolean } {
    if (!this.enabled) return { ok: true, remaining: Infinity, resetSeconds: 0, retryAfterSeconds: 0 };
    const b = this.bucket(key);
    if (b.tokens < 1) return { ok: false, ...this.state(b) };
    b.tokens -= 1;
    return { ok: true, ...this.state(b) };
  }

  /** Spends one token, or throws 429 rate_limited with Retry-After and the RateLimit headers. */
  consume(key: string): BucketState {
    const s = this.take(key);
    if (!s.ok) throw this.limitedError(s);
    return s;
  }

  /** Throws 429 if the bucket is empty, without spending (for failure-only buckets). */
  ensureAvailable(key: string): void {
    const s = this.peek(key);
    if (s.retryAfterSeconds > 0) throw this.limitedError(s);
  }

  headers(s: BucketState): Record<string, string> {
    if (!this.enabled) return {};
    const p = this.policy;
    const window = Math.max(1, Math.round(p.capacity / p.refillPerSecond));
    return {
      "ratelimit-policy": `"${p.name}";q=${Math.floor(p.capacity)};w=${window}`,
      ratelimit: `"${p.name}";r=${s.remaining};t=${s.resetSeconds}`,
    };
  }

  limitedError(s: BucketState): ApiError {
    return new ApiError(
      "rate_limited",
      `Too many requests; retry in ${s.retryAfterSeconds} s`,
      { retry_after: s.retryAfterSeconds },
      { "retry-after": String(s.retryAfterSeconds), ...this.headers(s) },
    );
  }
}

export interface RateLimiters {
  device: RateLimiter;
  connector: RateLimiter;
  authFailure: RateLimiter;
  activationFailure: RateLimiter;
}

export function createRateLimiters(clock: Clock, scale = 1): RateLimiters {
  return {
    device: new RateLimiter(POLICIES.device, clock, scale),
    connector: new RateLimiter(POLICIES.connector, clock, scale),
    authFailure: new RateLimiter(POLICIES.authFailure, clock, scale),
    activationFailure: new RateLimiter(POLICIES.activationFailure, clock, scale),
  };
}
