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

describe("order positions (contract §19): (created_at, id), sealed with a synthetic IV", () => {
  const positions = [
    { createdAt: 0, id: "" },
    { createdAt: 1795262400000, id: "A-1042" },
    { createdAt: 1795262400000, id: "A-1043" },
    { createdAt: 8_640_000_000_000_000, id: "x".repeat(64) },
    { createdAt: Number.MAX_SAFE_INTEGER, id: "2026/11#42:a.b_c-d" },
  ];

  test("round trip, one spelling per position, every cursor of the same length", () => {
    for (const pos of positions) {
      const text = c.orders.encode(A, pos);
      expect(text).toMatch(/^o[A-Za-z0-9_-]{118}$/);
      expect(c.orders.parse(A, text)).toEqual(pos);
      expect(c.orders.encode(A, pos)).toBe(text);
    }
    expect(new Set(positions.map((p) => c.orders.encode(A, p))).size).toBe(positions.length);
  });

  test("another tenant, environment or key does not read it; nor does a changed character or the seq codec", () => {
    const text = c.orders.encode(A, positions[1]!);
    expect(c.orders.parse({ tenantId: "ten_B", environment: "live" }, text)).toBeNull();
    expect(c.orders.parse({ tenantId: "ten_A", environment: "test" }, text)).toBeNull();
    expect(cursorCodec(new Uint8Array(32)).orders.parse(A, text)).toBeNull();
    for (let i = 1; i < text.length; i += 7) {
      const changed = text.slice(0, i) + (text[i] === "A" ? "B" : "A") + text.slice(i + 1);
      expect(c.orders.parse(A, changed)).toBeNull();
    }
    for (const bad of [text.slice(0, -1), text + "A", "", "o", c.encode("match", A, 1), "m" + text.slice(1)]) expect(c.orders.parse(A, bad)).toBeNull();
    expect(c.parse("match", A, text)).toBeNull();
    expect(() => c.orders.decode(A, "o" + text.slice(2) + "A", "/after")).toThrow(expect.objectContaining({ code: "invalid_cursor" }));
  });

  test("nothing of the position shows: the same id at another time, or another id, spells a different cursor throughout", () => {
    const a = c.orders.encode(A, { createdAt: 1, id: "A-1" });
    const b = c.orders.encode(A, { createdAt: 2, id: "A-1" });
    expect(a.slice(1, 23)).not.toBe(b.slice(1, 23));
    expect(a.slice(23)).not.toBe(b.slice(23));
  });

  test("an id the contract does not allow is refused when encoding", () => {
    expect(() => c.orders.encode(A, { createdAt: 1, id: "x".repeat(65) })).toThrow();
    expect(() => c.orders.encode(A, { createdAt: 1, id: "ñ" })).toThrow();
  });
});
