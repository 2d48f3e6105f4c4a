// The Idempotency-Key header (contract §6), read the same way by both surfaces.

/** `Idempotency-Key: abc` or the quoted form `"abc"`; null when missing or empty. */
export function idempotencyKey(header: string | null): string | null {
  if (header === null) return null;
  let key = header.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  return key === "" ? null : key;
}
