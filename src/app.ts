// createApp(deps): mounts both surfaces, the merchant's console, docs and health, and wraps them in the request pipeline
// that every route shares (request ids, Date, 413 before routing, problem+json errors, 404/405,
// one log line per request). Tests call app.handle(request); `serve` passes the client address.
import { Elysia } from "elysia";
import type { AppDeps } from "./deps";
import { newId } from "./ids";
import type { Logger } from "./log";
import { ApiError, DomainError, BUSY_RETRY_AFTER_S, isDatabaseBusy, problemResponse } from "./http/errors";
import { bodyLimitFor, checkDeclaredLength } from "./http/body";
import { invalid } from "./http/validation";
import { attachInfo, infoOf, type RequestInfo } from "./http/request-info";
import { docs, docsAssets } from "./system/docs";
import { finishDocument, withServers } from "./system/openapi-document";
import { healthRoutes } from "./system/health";
import { deviceRoutes } from "./device";
import { connectorRoutes } from "./connector";
import { consoleRoutes } from "./console";

export type { AppConfig, AppDeps } from "./deps";

export interface App {
  handle(request: Request, clientAddress?: string): Promise<Response>;
  /** The Elysia instance, for the OpenAPI document and route listing. */
  elysia: Elysia<any, any, any, any, any, any, any>;
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function createApp(deps: AppDeps): App {
  const elysia = new Elysia({ name: "cuadra" })
    .onError(({ request, code, error }) => renderError(request, code, error, deps.logger, methodNotAllowed))
    .use(docsAssets)
    .use(docs())
    .use(healthRoutes(deps.store, deps.writer))
    .use(deviceRoutes(deps))
    .use(connectorRoutes(deps))
    .use(consoleRoutes(deps));

  // contract §2.5: a known path with the wrong method is 405, an unknown one 404.
  const patterns = elysia.routes.map((r) => ({
    method: r.method.toUpperCase(),
    regex: new RegExp("^" + r.path.replace(/:[^/]+/g, "[^/]+") + "$"),
  }));
  function methodNotAllowed(pathname: string, method: string): string[] | null {
    const allowed = patterns.filter((p) => p.regex.test(pathname)).map((p) => p.method);
    return allowed.length > 0 && !allowed.includes(method) ? [...new Set(allowed)] : null;
  }

  // GET /docs/json: the plugin's document, finished once (system/openapi-document.ts); `servers`
  // per request, since the box may be reached under several addresses.
  let finished: Record<string, unknown> | null = null;
  async function openApiDocument(raw: Response, request: Request): Promise<Response> {
    finished ??= finishDocument((await raw.json()) as Record<string, unknown>);
    const origin = deps.config.publicUrl ?? new URL(request.url).origin;
    return Response.json(withServers(finished, origin));
  }

  return {
    elysia,
    async handle(original, clientAddress = "unknown") {
      const request = routable(original);
      const headerId = request.headers.get("x-request-id");
      const info = attachInfo(request, {
        requestId: headerId && CLIENT_REQUEST_ID.test(headerId) ? headerId : newId("req"),
        startedAt: performance.now(),
        clientAddress,
      });
      const pathname = new URL(request.url).pathname;
      let response: Response;
      try {
        checkDeclaredLength(request, bodyLimitFor(pathname)); // contract §2.6: before the body is read
        response = await elysia.handle(request);
        if (pathname === "/docs/json" && response.status === 200) response = await openApiDocument(response, request);
      } catch (e) {
        response = renderError(request, "UNKNOWN", e, deps.logger, methodNotAllowed);
      }
      response = finish(response, info, httpDate(deps.clock.now()));
      deps.logger.request({
        time: new Date(deps.clock.now()).toISOString(),
        level: response.status >= 500 ? "error" : "info",
        msg: "request",
        method: request.method,
        path: pathname,
        status: response.status,
        duration_ms: Math.round((performance.now() - info.startedAt) * 100) / 100,
        request_id: info.requestId,
        ...(info.tenantId ? { tenant_id: info.tenantId } : {}),
        ...(info.environment ? { environment: info.environment } : {}),
        ...(info.deviceId ? { device_id: info.deviceId } : {}),
      });
      return response;
    },
  };
}

/**
 * Elysia finds the path by position, assuming an authority of at least four characters: a request
 * with a short Host header (`Host: box`) would route to 404. Such a request is re-addressed to
 * localhost with its path and query kept byte for byte (device signatures cover them).
 */
function routable(request: Request): Request {
  const url = request.url;
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  if (slash === -1 || slash >= 11) return request;
  const { protocol, port } = new URL(url);
  // The body is passed on as a stream: copied as `init`, Bun would first read it in full, so an
  // oversized chunked body hung until the idle timeout instead of getting its 413 (contract §2.6).
  return new Request(`${protocol}//localhost${port ? `:${port}` : ""}${url.slice(slash)}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    duplex: "half",
  } as RequestInit);
}

/** Headers every answer carries (contract §2.4, §2.7). */
/** The Date header's text, made once per second rather than once per request. */
let dateSecond = Number.NaN;
let dateText = "";
function httpDate(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

function finish(response: Response, info: RequestInfo, date: string): Response {
  let headers: Headers;
  try {
    headers = response.headers;
    headers.set("x-request-id", info.requestId);
  } catch {
    response = new Response(response.body, response); // immutable headers: copy once
    headers = response.headers;
    headers.set("x-request-id", info.requestId);
  }
  headers.set("date", date);
  if (info.rateLimitHeaders) {
    for (const [k, v] of Object.entries(info.rateLimitHeaders)) if (!headers.has(k)) headers.set(k, v);
  }
  return response;
}

function renderError(
  request: Request,
  code: string | number,
  error: unknown,
  logger: Logger,
  methodNotAllowed: (pathname: string, method: string) => string[] | null,
): Response {
  const info = infoOf(request);
  // Errors thrown in a parse hook arrive wrapped (stack notes).
  const cause = error instanceof DomainError ? error : (error as { cause?: unknown })?.cause;
  if (cause instanceof DomainError) return problemResponse(cause, info.requestId);
  // Before PARSE: authentication reads the database inside the parse hook.
  const busy = [error, cause].find(isDatabaseBusy);
  if (busy) {
    logger.event("warn", "database busy: answered 503", { request_id: info.requestId, error: (busy as Error).message });
    return problemResponse(new ApiError("service_unavailable", undefined, {}, { "retry-after": String(BUSY_RETRY_AFTER_S) }), info.requestId);
  }
  if (code === "NOT_FOUND") {
    const pathname = new URL(request.url).pathname;
    const allowed = methodNotAllowed(pathname, request.method);
    if (allowed) {
      return problemResponse(
        new ApiError("method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(", ")}`, {}, { allow: allowed.join(", ") }),
        info.requestId,
      );
    }
    return problemResponse(new ApiError("not_found", `No route for ${request.method} ${pathname}`), info.requestId);
  }
  if (code === "PARSE") return problemResponse(new ApiError("malformed_json", "The body could not be parsed"), info.requestId);
  if (code === "VALIDATION") {
    // Bodies are validated by http/validation.ts; this covers a `t` schema Elysia checks itself
    // (query, params, headers), which must still be the contract's 400, never a 500 (§2.5).
    const all = (error as { all?: { path?: string; message?: string }[] }).all ?? [];
    const errors = all.map((e) => ({ field: e.path || "/", message: e.message ?? "Invalid value" }));
    return problemResponse(invalid(errors), info.requestId);
  }
  // Anything else is our bug: log what it was (never request data), answer a bare 500.
  logger.event("error", "unhandled error", {
    request_id: info.requestId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(code),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return problemResponse(new ApiError("internal_error"), info.requestId);
}
