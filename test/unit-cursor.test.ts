// Cursors (contract §11, §12, §20): opaque, deterministic, bound to kind, tenant and environment.
import { describe, expect, test } from "bun:test";
import { createCipheriv, createHmac } from "node:crypto";
import { cursorCodec } from "../src/connector/cursor";

const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
const c = cursorCodec(key);
const A = { tenantId: "ten_A", environment: "live" };

describe("cursorCodec", () => {
  test("round trip, one spelling per position, from 0 to the largest safe integer", () => {
    for (const seq of [0, 1, 2, 255, 256, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      const text = c.encode("match", A, seq);
      expect(text).toMatch(/^m[A-Za-z0-9_-]{22}$/);
      expect(c.parse("match", A, text)).toBe(seq);
      expect(c.encode("match", A, seq)).toBe(text);
    }
    expect(c.encode("event", A, 5)).toMatch(/^e/);
  });

  test("another kind, tenant, environment or key does not read it", () => {
    const text = c.encode("match", A, 42);
    expect(c.parse("event", A, "e" + text.slice(1))).toBeNull();
    expect(c.parse("match", { tenantId: "ten_B", environment: "live" }, text)).toBeNull();
    expect(c.parse("match", { tenantId: "ten_A", environment: "test" }, text)).toBeNull();
    expect(cursorCodec(new Uint8Array(32)).parse("match", A, text)).toBeNull();
  });

  test("a changed character, a missing or extra one, or the old plain form is not a cursor", () => {
    const text = c.encode("match", A, 42);
    const flipped = text.slice(0, 5) + (text[5] === "A" ? "B" : "A") + text.slice(6);
    for (const bad of [flipped, text.slice(0, -1), text + "A", `${text}=`, "", "bTE6NDI", "m" + "_".repeat(22)]) {
      expect(c.parse("match", A, bad)).toBeNull();
    }
    expect(() => c.decode("match", A, flipped, "/after")).toThrow(expect.objectContaining({ code: "invalid_cursor" }));
  });
});

test("a block under the right key whose check bytes are not zero is not a cursor (a forged or damaged one)", () => {
  // Made as the codec makes cursors (one AES block under HMAC(key, kind, tenant, environment)), but
  // with a non-zero check: only the check tells it from a real cursor of position 5.
  const scopeKey = createHmac("sha256", key).update("match\u0000ten_A\u0000live").digest();
  const block = Buffer.alloc(16);
  block.writeBigUInt64BE(5n, 0);
  block.writeBigUInt64BE(1n, 8);
  const c2 = createCipheriv("aes-256-ecb", scopeKey, null).setAutoPadding(false);
  const forged = "m" + Buffer.concat([c2.update(block), c2.final()]).toString("base64url");
  expect(c.parse("match", A, forged)).toBeNull();
  block.writeBigUInt64BE(0n, 8);
  const c3 = createCipheriv("aes-256-ecb", scopeKey, null).setAutoPadding(false);
  expect(c.parse("match", A, "m" + Buffer.concat([c3.update(block), c3.final()]).toString("base64url"))).toBe(5);
});
