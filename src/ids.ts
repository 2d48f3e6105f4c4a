// The one id generator, plus the random and hashing primitives that credentials use.
import { timingSafeEqual } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform random characters from `alphabet` (rejection sampling: no modulo bias). */
export function randomChars(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < limit) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export const randomBase62 = (length: number): string => randomChars(BASE62, length);

/** Public identifiers: a type prefix and 20 base62 characters (~119 bits). */
export type IdPrefix = "ten" | "key" | "dev" | "acd" | "nws" | "mat" | "req" | "evt" | "whe" | "msg" | "cln" | "ses";
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(20)}`;

/**
 * An id of the same shape as newId whose first 8 characters are `now` in base62 (ms; BASE62 is in
 * ASCII order, so later ids sort later), then 12 random characters (~71 bits). A unique index on
 * such ids grows at its right end instead of dirtying a random page per insert.
 */
export function newTimeOrderedId(prefix: IdPrefix, now: number): string {
  let time = "";
  for (let t = Math.max(0, Math.floor(now)), i = 0; i < 8; i++, t = Math.floor(t / 62)) time = BASE62[t % 62] + time;
  return `${prefix}_${time}${randomBase62(12)}`;
}

export const sha256Hex = (data: string | Uint8Array): string =>
  new Bun.CryptoHasher("sha256").update(data).digest("hex");

export const hmacSha256Hex = (key: string | Uint8Array, data: string | Uint8Array): string =>
  new Bun.CryptoHasher("sha256", key).update(data).digest("hex");

/** Constant-time comparison of two strings (lengths may differ; that much leaks, nothing more). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // spend comparable time anyway
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}
