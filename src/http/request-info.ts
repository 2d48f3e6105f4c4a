// Per-request facts that several layers need (request id, client address, who the caller is,
// the raw body for signature checks). Kept beside the Request, not in Elysia's context, so that
// services and the outer pipeline see the same record.
import type { Environment } from "../store/schema";

export interface RequestInfo {
  requestId: string;
  /** performance.now() at arrival, for the log's duration. */
  startedAt: number;
  clientAddress: string;
  tenantId?: string;
  environment?: Environment;
  deviceId?: string;
  /** The body exactly as received: device signatures are over these bytes (contract §5). */
  rawBody?: Uint8Array;
  /** RateLimit headers to put on the answer, set by whichever bucket the request spent from. */
  rateLimitHeaders?: Record<string, string>;
}

const infos = new WeakMap<Request, RequestInfo>();

export function attachInfo(request: Request, info: RequestInfo): RequestInfo {
  infos.set(request, info);
  return info;
}

/** The info of a request; a fallback record for a Request that did not come through the pipeline. */
export function infoOf(request: Request): RequestInfo {
  let info = infos.get(request);
  if (!info) {
    info = { requestId: "req_unknown", startedAt: performance.now(), clientAddress: "unknown" };
    infos.set(request, info);
  }
  return info;
}
