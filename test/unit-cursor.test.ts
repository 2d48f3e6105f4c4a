// Cursors (contract §11, §12, §20): opaque, deterministic, bound to kind, tenant and environment.
import { describe, expect, test } from "bun:test";
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
