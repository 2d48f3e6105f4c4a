// contract §5: how a device request is signed. Pure functions, shared by the server's check and the
// device client (src/client/device-client.ts), so both sides build the same string.
import { constantTimeEqual, hmacSha256Hex, sha256Hex } from "../ids";

export const SIGNATURE_ALG = "HMAC-SHA256";
/** contract §5: allowed distance between X-Timestamp and server time. */
export const MAX_CLOCK_SKEW_MS = 300_000;

export const SIGNED_HEADERS = {
  deviceId: "x-device-id",
  timestamp: "x-timestamp",
  alg: "x-signature-alg",
  signature: "x-signature",
} as const;

/** X-Timestamp + "\n" + METHOD + "\n" + PATH + "\n" + hex(sha256(BODY)) */
export function stringToSign(timestamp: string, method: string, path: string, body: string | Uint8Array): string {
  return `${timestamp}\n${method.toUpperCase()}\n${path}\n${sha256Hex(body)}`;
}

/** hex(hmac_sha256(key = UTF-8 bytes of the secret, string_to_sign)), lower case. */
export function signRequest(secret: string, timestamp: string, method: string, path: string, body: string | Uint8Array): string {
  return hmacSha256Hex(secret, stringToSign(timestamp, method, path, body));
}

/** Compares case-insensitively and in constant time (for signatures of the right length). */
export function signatureMatches(expected: string, given: string): boolean {
  return constantTimeEqual(expected, given.toLowerCase());
}

/**
 * The request target as sent: path and query, taken from the URL text without re-encoding or
 * normalising it (a parsed URL would resolve `..` and re-escape characters).
 */
export function requestTarget(url: string): string {
  const schemeEnd = url.indexOf("//");
  const pathStart = url.indexOf("/", schemeEnd === -1 ? 0 : schemeEnd + 2);
  if (pathStart === -1) return "/";
  const hash = url.indexOf("#", pathStart);
  return hash === -1 ? url.slice(pathStart) : url.slice(pathStart, hash);
}
