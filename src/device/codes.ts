// Activation codes (contract §4): 12 letters of an alphabet without vowels or look-alikes, shown as
// three groups of four. Input is case-insensitive; spaces and hyphens anywhere are ignored.
// Only an HMAC of the normalised code under the master key is stored (contract §20).
import { eq } from "drizzle-orm";
import type { Clock } from "../clock";
import { newId, randomChars } from "../ids";
import { secretHash } from "../store/secret-hash";
import type { Db } from "../store/db";
import { activationCodes, type Environment } from "../store/schema";
import { getTenant } from "../tenants/service";

export const CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const CODE_LENGTH = 12;
export const CODE_TTL_DEFAULT_S = 900;
export const CODE_TTL_MAX_S = 259_200;

const VALID = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);

/** The 12 letters of a typed code, or null when it cannot be a code. */
export function normalizeCode(input: string): string | null {
  // Only ASCII letters count: toUpperCase alone would read "ſ" (U+017F) as S.
  if (/[^\x00-\x7f]/.test(input.replace(/\s/g, ""))) return null;
  const letters = input.replace(/[\s-]/g, "").toUpperCase();
  return VALID.test(letters) ? letters : null;
}

export const formatCode = (letters: string): string => `${letters.slice(0, 4)}-${letters.slice(4, 8)}-${letters.slice(8, 12)}`;


export function createActivationCode(db: Db, clock: Clock, tenantId: string, environment: Environment, ttlSeconds = CODE_TTL_DEFAULT_S) {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > CODE_TTL_MAX_S) {
    throw new RangeError(`--ttl must be a whole number of seconds from 1 to ${CODE_TTL_MAX_S}`);
  }
  getTenant(db, tenantId);
  const letters = randomChars(CODE_ALPHABET, CODE_LENGTH);
  const now = clock.now();
  const expiresAt = now + ttlSeconds * 1000;
  db.insert(activationCodes)
    .values({ id: newId("acd"), codeHash: secretHash(db, letters), tenantId, environment, createdAt: now, expiresAt })
    .run();
  return { code: formatCode(letters), tenant_id: tenantId, environment, expires_at: expiresAt };
}

export function findCodeByLetters(db: Db, letters: string) {
  return db.select().from(activationCodes).where(eq(activationCodes.codeHash, secretHash(db, letters))).get() ?? null;
}
