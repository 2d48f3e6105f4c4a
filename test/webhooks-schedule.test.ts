// Unit tests of the retry schedule, jitter, Retry-After and the disabling rules (contract §15),
// and of the signatures, checked with the published `standardwebhooks` library.
import { describe, expect, setSystemTime, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import {
  afterAttempt,
  FAILING_DISABLE_MS,
  MAX_ATTEMPTS,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  retryDelay,
  type AttemptResult,
} from "../src/webhooks/schedule";
import { newWebhookSecret, signatureHeader } from "../src/webhooks/signature";
import { SIGNING_EXAMPLE, SIGNING_EXAMPLE_SIGNATURE } from "../src/webhooks/model";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const fail = (status = 500, retryAfterMs: number | null = null): AttemptResult => ({ kind: "answered", status, retryAfterMs });
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe("schedule", () => {
  test("eight attempts: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect([...RETRY_DELAYS_MS]).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
    // random 0.5 is no jitter: attempt n failed → the next one after the n-th delay.
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      const out = afterAttempt(fail(), attempts, null, NOW, 0.5);
      expect(out.message).toEqual({ status: "pending", nextAttemptAt: NOW + RETRY_DELAYS_MS[attempts - 1]! });
    }
  });

  test("the eighth failure makes the message failed, with no next attempt", () => {
    expect(afterAttempt(fail(), 8, null, NOW, 0.5).message).toEqual({ status: "failed", nextAttemptAt: null });
    expect(afterAttempt(fail(), 7, null, NOW, 0.5).message.status).toBe("pending");
  });

  test("jitter stays within ±10 % and reaches both ends", () => {
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      const base = RETRY_DELAYS_MS[attempts - 1]!;
      expect(retryDelay(attempts, 0)).toBe(Math.round(base * 0.9));
      expect(retryDelay(attempts, 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.1));
      expect(retryDelay(attempts, 0.999999)).toBeGreaterThan(Math.round(base * 1.099));
      for (let i = 0; i < 50; i++) {
        const d = retryDelay(attempts, Math.random());
        expect(d).toBeGreaterThanOrEqual(Math.round(base * 0.9));
        expect(d).toBeLessThanOrEqual(Math.round(base * 1.1));
      }
    }
  });

  test("any 2xx succeeds and resets the failing clock; 1xx, 3xx and errors do not", () => {
    for (const status of [200, 201, 204, 299]) {
      expect(afterAttempt(fail(status), 3, NOW - HOUR, NOW, 0.5)).toEqual({
        message: { status: "succeeded", nextAttemptAt: null },
        endpoint: { failingSince: null, disable: null },
      });
    }
    for (const status of [199, 301, 302, 304, 400, 404, 500]) expect(afterAttempt(fail(status), 1, null, NOW, 0.5).message.status).toBe("pending");
    expect(afterAttempt({ kind: "error", error: "timeout after 15 s" }, 1, null, NOW, 0.5).message.status).toBe("pending");
  });

  test("429 and 503 with Retry-After of at most an hour wait at least that long", () => {
    expect(afterAttempt(fail(429, 20 * MINUTE), 1, null, NOW, 0.5).message.nextAttemptAt).toBe(NOW + 20 * MINUTE);
    expect(afterAttempt(fail(503, HOUR), 1, null, NOW, 0.5).message.nextAttemptAt).toBe(NOW + HOUR);
    // Shorter than the schedule: the schedule wins ("at least").
    expect(afterAttempt(fail(429, SECOND), 3, null, NOW, 0.5).message.nextAttemptAt).toBe(NOW + 30 * MINUTE);
    // Over an hour: not honoured.
    expect(afterAttempt(fail(503, HOUR + 1), 1, null, NOW, 0.5).message.nextAttemptAt).toBe(NOW + 5 * SECOND);
    // Other statuses: Retry-After is ignored.
    expect(afterAttempt(fail(500, 20 * MINUTE), 1, null, NOW, 0.5).message.nextAttemptAt).toBe(NOW + 5 * SECOND);
  });

  test("Retry-After in seconds or as an HTTP date", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000);
    expect(parseRetryAfter(new Date(NOW - 90_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter("soon", NOW)).toBeNull();
    expect(parseRetryAfter("-5", NOW)).toBeNull();
    expect(parseRetryAfter("1.5", NOW)).toBeNull();
  });

  test("410 disables the endpoint at once", () => {
    expect(afterAttempt(fail(410), 1, null, NOW, 0.5).endpoint.disable).toBe("gone");
    expect(afterAttempt(fail(404), 1, null, NOW, 0.5).endpoint.disable).toBeNull();
  });

  test("five days of failures with no success disable the endpoint; the clock starts at the first failure", () => {
    const first = afterAttempt(fail(), 1, null, NOW, 0.5);
    expect(first.endpoint).toEqual({ failingSince: NOW, disable: null });
    expect(afterAttempt(fail(), 2, NOW, NOW + FAILING_DISABLE_MS - 1, 0.5).endpoint).toEqual({ failingSince: NOW, disable: null });
    expect(afterAttempt(fail(), 2, NOW, NOW + FAILING_DISABLE_MS, 0.5).endpoint).toEqual({ failingSince: NOW, disable: "failing" });
    // A success in between restarts the clock.
    expect(afterAttempt(fail(204), 1, NOW, NOW + FAILING_DISABLE_MS, 0.5).endpoint.disable).toBeNull();
  });
});

describe("signatures (verified with the standardwebhooks package)", () => {
  test("a new secret is whsec_ and the base64 of 32 random bytes", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64").length).toBe(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  test("a signed message verifies with the library, and fails for another body, id, time or secret", () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: "match.created", timestamp: new Date().toISOString(), data: { id: "mat_1" } });
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(ts), "webhook-signature": signatureHeader([secret], "msg_1", ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body + " ", headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "msg_2" })).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-timestamp": String(ts - 1) })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  test("two secrets give two signatures, each valid for its own secret", () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([newSecret, oldSecret], "msg_9", ts, "{}");
    expect(header.split(" ")).toHaveLength(2);
    for (const s of [oldSecret, newSecret]) {
      expect(new Webhook(s).verify("{}", { "webhook-id": "msg_9", "webhook-timestamp": String(ts), "webhook-signature": header })).toEqual({});
    }
  });

  test("the worked example of the Webhooks section verifies with the library", () => {
    setSystemTime(new Date(SIGNING_EXAMPLE.timestamp * 1000 + 10_000));
    try {
      const headers = { "webhook-id": SIGNING_EXAMPLE.id, "webhook-timestamp": String(SIGNING_EXAMPLE.timestamp), "webhook-signature": SIGNING_EXAMPLE_SIGNATURE };
      expect(new Webhook(SIGNING_EXAMPLE.secret).verify(SIGNING_EXAMPLE.body, headers)).toEqual(JSON.parse(SIGNING_EXAMPLE.body));
    } finally {
      setSystemTime();
    }
  });

  test("the worked example's shell line (openssl) gives the documented signature", async () => {
    const script = `KEY_HEX=$(printf '%s' "\${SECRET#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \\n')
printf '%s' "$ID.$TIMESTAMP.$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY_HEX" -binary | base64`;
    const { WEBHOOKS_DESCRIPTION } = await import("../src/webhooks/model");
    expect(WEBHOOKS_DESCRIPTION).toContain(script);
    const p = Bun.spawn(["sh", "-c", script], {
      env: { ...process.env, SECRET: SIGNING_EXAMPLE.secret, ID: SIGNING_EXAMPLE.id, TIMESTAMP: String(SIGNING_EXAMPLE.timestamp), BODY: SIGNING_EXAMPLE.body },
      stdout: "pipe",
    });
    expect(`v1,${(await new Response(p.stdout).text()).trim()}`).toBe(SIGNING_EXAMPLE_SIGNATURE);
  });
});
