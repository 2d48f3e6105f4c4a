// Token buckets (contract §2.7) driven by a ManualClock: no sleeping, exact arithmetic.
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../src/clock";
import { ApiError } from "../src/http/errors";
import { createRateLimiters, POLICIES, RateLimiter } from "../src/http/rate-limit";

const device = (clock = new ManualClock(), scale = 1) => new RateLimiter(POLICIES.device, clock, scale);

describe("token bucket", () => {
  test("a new bucket holds its capacity and refuses the next request", () => {
    const limiter = device();
    for (let i = 0; i < 30; i++) expect(limiter.take("dev_a").ok).toBe(true);
    const refused = limiter.take("dev_a");
    expect(refused.ok).toBe(false);
    expect(refused.remaining).toBe(0);
    // 3 tokens per second: one token is 1/3 s away, rounded up to whole seconds, at least 1.
    expect(refused.retryAfterSeconds).toBe(1);
  });

  test("refills at its rate and never beyond capacity", () => {
    const clock = new ManualClock();
    const limiter = device(clock);
    for (let i = 0; i < 30; i++) limiter.take("k");
    clock.advance(1000);
    expect(limiter.peek("k").remaining).toBe(3);
    clock.advance(333);
    expect(limiter.peek("k").remaining).toBe(3); // 3.999: not yet 4
    clock.advance(1);
    expect(limiter.peek("k").remaining).toBe(4);
    clock.advance(3_600_000);
    expect(limiter.peek("k").remaining).toBe(30);
  });

  test("keys are independent", () => {
    const limiter = device();
    for (let i = 0; i < 30; i++) limiter.take("a");
    expect(limiter.take("a").ok).toBe(false);
    expect(limiter.take("b").ok).toBe(true);
    expect(limiter.peek("b").remaining).toBe(29);
  });

  test("peek does not spend", () => {
    const limiter = device();
    for (let i = 0; i < 5; i++) limiter.peek("a");
    expect(limiter.peek("a").remaining).toBe(30);
  });

  test("a clock that goes backwards adds nothing", () => {
    const clock = new ManualClock();
    const limiter = device(clock);
    for (let i = 0; i < 30; i++) limiter.take("a");
    clock.advance(-60_000);
    expect(limiter.take("a").ok).toBe(false);
  });

  test("a clock that steps back takes no tokens away: the bucket serves as before, and its next refill is exact", () => {
    const clock = new ManualClock();
    const limiter = device(clock);
    expect(limiter.take("a").remaining).toBe(29);
    clock.advance(-60_000); // NTP corrects the box's clock by a minute
    const after = limiter.take("a");
    expect(after.ok).toBe(true);
    expect(after.remaining).toBe(28);
    expect(after.retryAfterSeconds).toBe(0);
    for (let i = 0; i < 28; i++) expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
    clock.advance(1000); // one second after the step back: 3 tokens, as for any second
    expect(limiter.peek("a").remaining).toBe(3);
  });

  test("resetSeconds is the time until the bucket is full again", () => {
    const limiter = device();
    limiter.take("a");
    expect(limiter.peek("a").resetSeconds).toBe(1); // 1 token at 3/s
    for (let i = 0; i < 29; i++) limiter.take("a");
    expect(limiter.peek("a").resetSeconds).toBe(10);
  });

  test("the activation bucket refills one attempt per minute", () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(POLICIES.activationFailure, clock);
    for (let i = 0; i < 10; i++) expect(limiter.take("1.2.3.4").ok).toBe(true);
    const s = limiter.take("1.2.3.4");
    expect(s.ok).toBe(false);
    expect(s.retryAfterSeconds).toBe(60);
    clock.advance(59_000);
    expect(limiter.take("1.2.3.4")).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    clock.advance(1_000);
    expect(limiter.take("1.2.3.4").ok).toBe(true);
  });

  test("consume throws 429 rate_limited with Retry-After and IETF draft RateLimit headers", () => {
    const clock = new ManualClock();
    const limiter = device(clock);
    const first = limiter.consume("a");
    expect(limiter.headers(first)).toEqual({ "ratelimit-policy": '"device";q=30;w=10', ratelimit: '"device";r=29;t=1' });
    for (let i = 0; i < 29; i++) limiter.consume("a");
    let thrown: unknown;
    try {
      limiter.consume("a");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const err = thrown as ApiError;
    expect(err.code).toBe("rate_limited");
    expect(err.status).toBe(429);
    expect(err.headers["retry-after"]).toBe("1");
    expect(err.headers["ratelimit-policy"]).toBe('"device";q=30;w=10');
    expect(err.headers.ratelimit).toBe('"device";r=0;t=10');
  });

  test("ensureAvailable throws only when the bucket is empty and never spends", () => {
    const limiter = new RateLimiter(POLICIES.authFailure, new ManualClock());
    limiter.ensureAvailable("ip");
    expect(limiter.peek("ip").remaining).toBe(60);
    for (let i = 0; i < 60; i++) limiter.take("ip");
    expect(() => limiter.ensureAvailable("ip")).toThrow(ApiError);
  });

  test("every policy of the contract has its size, refill and window", () => {
    const clock = new ManualClock();
    const l = createRateLimiters(clock);
    expect(l.device.headers(l.device.peek("x"))["ratelimit-policy"]).toBe('"device";q=30;w=10');
    expect(l.connector.headers(l.connector.peek("x"))["ratelimit-policy"]).toBe('"connector";q=100;w=2');
    expect(l.authFailure.headers(l.authFailure.peek("x"))["ratelimit-policy"]).toBe('"auth_failure";q=60;w=60');
    expect(l.activationFailure.headers(l.activationFailure.peek("x"))["ratelimit-policy"]).toBe('"activation";q=10;w=600');
  });
});

describe("--rate-limit-scale", () => {
  test("scale 2 doubles size and refill", () => {
    const clock = new ManualClock();
    const limiter = device(clock, 2);
    for (let i = 0; i < 60; i++) expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
    clock.advance(1000);
    expect(limiter.peek("a").remaining).toBe(6);
    expect(limiter.headers(limiter.peek("a"))["ratelimit-policy"]).toBe('"device";q=60;w=10');
  });

  test("scale 0 turns limiting off and sends no RateLimit headers", () => {
    const limiters = createRateLimiters(new ManualClock(), 0);
    for (let i = 0; i < 10_000; i++) limiters.device.consume("a");
    expect(limiters.device.take("a").ok).toBe(true);
    expect(() => limiters.authFailure.ensureAvailable("a")).not.toThrow();
    expect(limiters.device.headers(limiters.device.peek("a"))).toEqual({});
  });
});

test("memory stays bounded: full buckets are dropped, partly spent ones kept", () => {
  const limiter = device();
  limiter.take("spent");
  // Fill the map to its bound with full buckets (peek creates them full).
  for (let i = 0; i < 99_999; i++) limiter.peek(`ip${i}`);
  limiter.peek("one-more"); // triggers the sweep
  expect(limiter.peek("spent").remaining).toBe(29); // still remembered, not reset to 30
  expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThan(10);
});

test("a client that waits exactly Retry-After seconds is served (no float dust)", () => {
  for (const policy of Object.values(POLICIES)) {
    const clock = new ManualClock();
    const limiter = new RateLimiter(policy, clock);
    for (let i = 0; i < policy.capacity; i++) limiter.take("k");
    for (let round = 0; round < 50; round++) {
      let refused = limiter.take("k");
      while (refused.ok) refused = limiter.take("k"); // drain what the last wait refilled
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      clock.advance(refused.retryAfterSeconds * 1000);
      expect(limiter.take("k").ok).toBe(true);
    }
  }
});
