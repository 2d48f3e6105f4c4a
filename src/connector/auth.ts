// Connector key authentication (contract §8, §2.7). The key comes from `Authorization: Bearer` or
// HTTP Basic (key as user name, empty password), never from the query string. Tenant and
// environment come from the stored key. Failures spend from the caller's address bucket (60,
// one per second) and never from a key's allowance; a known key spends from its own bucket.
import { ApiError, type ErrorCode } from "../http/errors";
import { infoOf } from "../http/request-info";
import type { ConnectorDeps } from "./deps";
import type { Environment } from "../store/schema";
import { findActiveKey } from "../tenants/service";

export interface ConnectorCaller {
  tenantId: string;
  environment: Environment;
  keyId: string;
}


/** A key's shape (contract §3); anything else is refused without a lookup. */
const KEY_SHAPE = /^sk_(live|test)_[A-Za-z0-9]{32,}$/;

export type PresentedKey = { kind: "missing" } | { kind: "key"; key: string } | { kind: "malformed" };

/** Reads the key from an Authorization header value. */
export function presentedKey(header: string | null): PresentedKey {
  if (header === null) return { kind: "missing" };
  const m = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  if (!m) return { kind: "missing" };
  const scheme = m[1]!.toLowerCase();
  const credentials = (m[2] ?? "").trim();
  if (scheme === "bearer") return credentials ? { kind: "key", key: credentials } : { kind: "missing" };
  if (scheme === "basic") {
    if (!credentials) return { kind: "missing" };
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credentials)) return { kind: "malformed" };
    const decoded = Buffer.from(credentials, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const user = colon === -1 ? decoded : decoded.slice(0, colon);
    const password = colon === -1 ? "" : decoded.slice(colon + 1);
    if (!user) return { kind: "missing" };
    return password === "" ? { kind: "key", key: user } : { kind: "malformed" };
  }
  return { kind: "missing" };
}

const DETAIL: Record<"api_key_missing" | "api_key_invalid", string> = {
  api_key_missing: "Send your secret key as `Authorization: Bearer sk_…`",
  api_key_invalid: "This key is unknown or has been revoked",
};

export type Authenticate = (request: Request) => ConnectorCaller;

/**
 * Returns `authenticate(request)`: the caller, or a thrown 401/429. The answer is remembered per
 * request, so a route may call it from its parse hook (to refuse before reading a body) and again
 * from its handler.
 */
export function connectorAuthenticator(deps: ConnectorDeps): Authenticate {
  const seen = new WeakMap<Request, ConnectorCaller>();

  function refuse(request: Request, code: Extract<ErrorCode, "api_key_missing" | "api_key_invalid">): never {
    const info = infoOf(request);
    const bucket = deps.limiters.authFailure.take(info.clientAddress);
    if (!bucket.ok) throw deps.limiters.authFailure.limitedError(bucket);
    throw new ApiError(code, DETAIL[code], {}, { "www-authenticate": "Bearer" });
  }

  return (request) => {
    const known = seen.get(request);
    if (known) return known;
    const presented = presentedKey(request.headers.get("authorization"));
    if (presented.kind === "missing") refuse(request, "api_key_missing");
    if (presented.kind === "malformed" || !KEY_SHAPE.test(presented.key)) refuse(request, "api_key_invalid");
    const row = findActiveKey(deps.store.db, presented.key);
    if (!row) refuse(request, "api_key_invalid");
    const caller: ConnectorCaller = { tenantId: row.tenantId, environment: row.environment, keyId: row.keyId };
    const info = infoOf(request);
    info.tenantId = caller.tenantId;
    info.environment = caller.environment;
    const limiter = deps.limiters.connector;
    const state = limiter.consume(caller.keyId); // 429 with Retry-After and RateLimit headers
    info.rateLimitHeaders = limiter.headers(state);
    seen.set(request, caller);
    return caller;
  };
}

/** An Elysia parse hook that authenticates first, so a refused caller's body is never read. */
export const authenticateFirst =
  (authenticate: Authenticate) =>
  ({ request }: { request: Request }): undefined => {
    authenticate(request);
    return undefined;
  };
