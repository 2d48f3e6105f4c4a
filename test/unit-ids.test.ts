// Ids, randomness, hashing and constant-time comparison; the manual clock.
import { describe, expect, test } from "bun:test";
import { ManualClock, systemClock } from "../src/clock";
import { base64url, constantTimeEqual, hmacSha256Hex, newId, randomBase62, randomChars, sha256Hex } from "../src/ids";

describe("ids", () => {
  test("a public id is its prefix and 20 base62 characters, never repeated", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newId("ten");
      expect(id).toMatch(/^ten_[0-9A-Za-z]{20}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2000);
    expect(newId("req")).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });

  test("randomChars uses only the alphabet and the requested length", () => {
    expect(randomChars("BCDFGHJKLMNPQRSTVWXZ", 12)).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{12}$/);
    expect(randomBase62(0)).toBe("");
    expect(randomBase62(300)).toMatch(/^[0-9A-Za-z]{300}$/);
  });

  test("base62 characters are uniform (a modulo bias would favour the first 8 by 25 %)", () => {
    const n = 248_000; // 4000 expected per character, standard deviation about 63
    const counts = new Map<string, number>();
    for (const ch of randomBase62(n)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const c of counts.values()) {
      expect(c).toBeGreaterThan(3600);
      expect(c).toBeLessThan(4400);
    }
  });
});

describe("hashing", () => {
  test("SHA-256 of a known input", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(new Uint8Array(0))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  test("HMAC-SHA256 matches RFC 4231 test case 2", () => {
    expect(hmacSha256Hex("Jefe", "what do ya want for nothing?")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  test("constant-time comparison", () => {
    expect(constantTimeEqual("abcdef", "abcdef")).toBe(true);
    expect(constantTimeEqual("abcdef", "abcdeg")).toBe(false);
    expect(constantTimeEqual("abc", "abcdef")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("ñ", "n")).toBe(false);
  });

  test("base64url has no padding or +/", () => {
    expect(base64url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe("-_-_");
    expect(base64url(new Uint8Array([1]))).toBe("AQ");
  });
});

describe("clock", () => {
  test("the manual clock moves only when told", () => {
    const clock = new ManualClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(500);
    expect(clock.now()).toBe(1500);
    clock.set(42);
    expect(clock.now()).toBe(42);
  });

  test("the system clock reads epoch milliseconds", () => {
    const before = Date.now();
    const t = systemClock.now();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
});
