// Who is asking and in which language (contract §18): the session from the cookie, read from the
// database on every request (a revocation holds at once), the same-origin check of every change,
// and how a console answer is sent.
import type { AppDeps } from "../deps";
import { DomainError } from "../errors";
import { readBodyLimited, BODY_LIMITS } from "../http/body";
import { constantTimeEqual, hmacSha256Hex } from "../ids";
import { pickLang, translator, type Lang, type Translate } from "../i18n";
import type { Scope } from "../matching/store";
import { getTenant, licenseOf, type License } from "../tenants/service";
import { findSession, SESSION_COOKIE, SESSION_MS, type ConsoleSession } from "./sessions";
import type { Html } from "./html";

export const LANG_COOKIE = "cuadra_lang";
export const SIGN_IN_PATH = "/console/entrar";

export interface Visitor {
  lang: Lang;
  t: Translate;
  now: number;
}

/** A signed-in request: the shop, its environment of the moment and its license. */
export interface ConsoleView extends Visitor {
  session: ConsoleSession;
  scope: Scope;
  shopName: string;
  license: License;
  /** Proof, in every form, that a change comes from a page of this session (with the Origin check). */
  csrf: string;
  /** The box's address for phones (contract §17), or the address the browser used. */
  boxUrl: string;
  /** This page's path and query: where the menu's switches bring the browser back to. */
  path: string;
}

export function cookiesOf(request: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()));
  }
  return out;
}

export function visitorOf(deps: AppDeps, request: Request): Visitor {
  const lang = pickLang(cookiesOf(request).get(LANG_COOKIE), request.headers.get("accept-language"));
  return { lang, t: translator(lang), now: deps.clock.now() };
}

const csrfOf = (sessionToken: string): string => hmacSha256Hex(sessionToken, "console-csrf").slice(0, 32);

/** The signed-in view, or null without a live session. */
export function viewOf(deps: AppDeps, request: Request, path = "/console/"): ConsoleView | null {
  const visitor = visitorOf(deps, request);
  const token = cookiesOf(request).get(SESSION_COOKIE);
  if (!token) return null;
  const session = findSession(deps.store.db, token, visitor.now);
  if (!session) return null;
  const tenant = getTenant(deps.store.db, session.tenantId);
  return {
    ...visitor,
    session,
    scope: { tenantId: session.tenantId, environment: session.environment },
    shopName: tenant.name,
    license: licenseOf(deps.store.db, { now: () => visitor.now }, tenant),
    csrf: csrfOf(token),
    boxUrl: deps.config.boxUrl ?? originOf(request),
    path,
  };
}

/** The origin the browser used: Host as it sent it (app.ts may re-address a short one). */
function originOf(request: Request): string {
  const url = new URL(request.url);
  return `${url.protocol}//${request.headers.get("host") ?? url.host}`;
}

export function isHttps(deps: AppDeps, request: Request): boolean {
  return new URL(request.url).protocol === "https:" || (deps.config.publicUrl?.startsWith("https:") ?? false);
}

/**
 * contract §18: a change needs the session, an Origin that is this box (when the browser sends one;
 * every current browser does on a form's POST) and the form's token. Refused with 403 otherwise.
 */
export async function readChange(deps: AppDeps, request: Request): Promise<{ view: ConsoleView; form: URLSearchParams }> {
  const origin = request.headers.get("origin");
  if (origin !== null && !sameOrigin(deps, request, origin)) {
    throw new DomainError("console_origin_refused", "The request came from another origin");
  }
  const view = viewOf(deps, request);
  if (!view) throw new DomainError("console_session_required", "Sign in to the console first");
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const raw = type === "application/x-www-form-urlencoded" ? await readBodyLimited(request, BODY_LIMITS.device) : new Uint8Array(0);
  const form = new URLSearchParams(new TextDecoder().decode(raw));
  if (!constantTimeEqual(form.get("_csrf") ?? "", view.csrf)) {
    throw new DomainError("console_origin_refused", "The form did not come from this console");
  }
  return { view, form };
}

function sameOrigin(deps: AppDeps, request: Request, origin: string): boolean {
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    return false;
  }
  const own = new URL(originOf(request));
  if (given.protocol === own.protocol && given.host === own.host) return true;
  // Behind a reverse proxy the browser's origin is the public address.
  return deps.config.publicUrl !== undefined && given.origin === new URL(deps.config.publicUrl).origin;
}

const SECURITY_HEADERS = {
  // Nothing from another host, no inline script, no framing (contract §18: the page loads nothing
  // from another host).
  "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // Not no-referrer: with it Chromium sends `Origin: null` on a form POST, which the check refuses.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

export function htmlResponse(body: Html, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body.text, { status, headers: { "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...headers } });
}

export function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...SECURITY_HEADERS, ...headers } });
}

export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MS / 1000}${secure ? "; Secure" : ""}`;
}

export const clearedSessionCookie = (secure: boolean): string =>
  `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;
