// Signing in to the merchant's console (contract §18): one-time links, then a 30-day session per
// browser. Links and sessions are both random tokens of which only the HMAC under the master key is
// stored (contract §20), so a copy of the database alone opens nothing.
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { DomainError } from "../errors";
import { newId, randomBase62 } from "../ids";
import type { Db } from "../store/db";
import { consoleLinks, consoleSessions, type Environment } from "../store/schema";
import { secretHash } from "../store/secret-hash";
import { getTenant } from "../tenants/service";

export const LINK_TTL_DEFAULT_S = 900;
export const LINK_TTL_MAX_S = 86_400;
export const SESSION_MS = 30 * 24 * 3600 * 1000;
/** ~238 bits: a token cannot be guessed, so sign-in needs no attempt counter. */
const TOKEN_CHARS = 40;
const USER_AGENT_MAX = 256;

export const SESSION_COOKIE = "cuadra_session";
export const LOGIN_PATH = "/console/login";

export interface SignInLink {
  /** The token of `…/console/login?token=…`; the caller builds the URL (it knows the box's address). */
  token: string;
  expires_at: number;
}

/** A link for `tenantId`, valid `ttlSeconds` (`cuadra console link`, init, the console's "Otro dispositivo"). */
export function createSignInLink(tx: Db, tenantId: string, ttlSeconds: number, now: number): SignInLink {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > LINK_TTL_MAX_S) {
    throw new RangeError(`--ttl must be a whole number of seconds from 1 to ${LINK_TTL_MAX_S}`);
  }
  getTenant(tx, tenantId);
  const token = randomBase62(TOKEN_CHARS);
  const expiresAt = now + ttlSeconds * 1000;
  tx.insert(consoleLinks).values({ id: newId("cln"), tenantId, tokenHash: secretHash(tx, token), createdAt: now, expiresAt }).run();
  return { token, expires_at: expiresAt };
}

export const signInUrl = (baseUrl: string, token: string): string => `${baseUrl.replace(/\/+$/, "")}${LOGIN_PATH}?token=${token}`;

export interface OpenedSession {
  session_id: string;
  tenant_id: string;
  /** The cookie's value; never stored. */
  token: string;
  expires_at: number;
}

/**
 * Uses a link once and makes a session, in one transaction: two tabs opening the same link at once
 * get one session (the second finds the link used). A used, expired or unknown link is
 * `console_link_invalid`; the page says how to get a new one.
 */
export function openSession(tx: Db, linkToken: string, userAgent: string | null, now: number): OpenedSession {
  const link = tx.select().from(consoleLinks).where(eq(consoleLinks.tokenHash, secretHash(tx, linkToken))).get();
  if (!link || link.usedAt !== null || link.expiresAt <= now) {
    throw new DomainError("console_link_invalid", link?.usedAt != null ? "This sign-in link was already used" : "This sign-in link is unknown or expired");
  }
  tx.update(consoleLinks).set({ usedAt: now }).where(eq(consoleLinks.id, link.id)).run();
  const token = randomBase62(TOKEN_CHARS);
  const session = {
    id: newId("ses"),
    tenantId: link.tenantId,
    tokenHash: secretHash(tx, token),
    userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
    createdAt: now,
    expiresAt: now + SESSION_MS,
  };
  tx.insert(consoleSessions).values(session).run();
  return { session_id: session.id, tenant_id: session.tenantId, token, expires_at: session.expiresAt };
}

export type ConsoleSession = typeof consoleSessions.$inferSelect;

/** The live session a cookie names, or null (unknown, revoked or expired). Read on every request. */
export function findSession(db: Db, token: string, now: number): ConsoleSession | null {
  if (!/^[A-Za-z0-9]{40}$/.test(token)) return null;
  const row = db.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, secretHash(db, token))).get();
  return row && row.revokedAt === null && row.expiresAt > now ? row : null;
}

export function listSessions(db: Db, tenantId: string, now: number) {
  getTenant(db, tenantId);
  return db
    .select({
      session_id: consoleSessions.id,
      user_agent: consoleSessions.userAgent,
      environment: consoleSessions.environment,
      created_at: consoleSessions.createdAt,
      expires_at: consoleSessions.expiresAt,
    })
    .from(consoleSessions)
    .where(and(eq(consoleSessions.tenantId, tenantId), isNull(consoleSessions.revokedAt), gt(consoleSessions.expiresAt, now)))
    .orderBy(asc(consoleSessions.createdAt), asc(consoleSessions.id))
    .all();
}

/** Ends one session (`cuadra console revoke ID`, "Salir"); `tenantId` confines it to one shop when given. */
export function revokeSession(tx: Db, sessionId: string, now: number, tenantId?: string) {
  const row = tx.select().from(consoleSessions).where(eq(consoleSessions.id, sessionId)).get();
  if (!row || (tenantId !== undefined && row.tenantId !== tenantId)) {
    throw new DomainError("console_session_not_found", `no console session ${sessionId}; see 'cuadra console sessions --tenant ID'`);
  }
  const revokedAt = row.revokedAt ?? now;
  if (row.revokedAt === null) tx.update(consoleSessions).set({ revokedAt }).where(eq(consoleSessions.id, sessionId)).run();
  return { session_id: sessionId, revoked_at: revokedAt };
}

/** Ends every session of a shop (`cuadra console revoke --all --tenant ID`). */
export function revokeAllSessions(tx: Db, tenantId: string, now: number) {
  getTenant(tx, tenantId);
  const ended = tx
    .update(consoleSessions)
    .set({ revokedAt: now })
    .where(and(eq(consoleSessions.tenantId, tenantId), isNull(consoleSessions.revokedAt), gt(consoleSessions.expiresAt, now)))
    .returning({ id: consoleSessions.id })
    .all();
  return { tenant_id: tenantId, revoked: ended.length };
}

/** The live/test switch of one browser (contract §18). */
export function setSessionEnvironment(tx: Db, sessionId: string, environment: Environment) {
  tx.update(consoleSessions).set({ environment }).where(eq(consoleSessions.id, sessionId)).run();
  return { session_id: sessionId, environment };
}
