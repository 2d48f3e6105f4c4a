// Reading request bodies: size limits decided before the body is read in full, Content-Type,
// JSON (contract §2.1, §2.5, §2.6).
import { ApiError } from "./errors";
import { infoOf } from "./request-info";

export const KiB = 1024;
/** contract §2.6 */
export const BODY_LIMITS = {
  activation: 4 * KiB,
  device: 64 * KiB,
  connector: 1024 * KiB,
} as const;

/** The limit that applies to a path; the pipeline checks Content-Length with it before routing. */
export function bodyLimitFor(pathname: string): number {
  if (pathname === "/device/v1/activation") return BODY_LIMITS.activation;
  if (pathname.startsWith("/connector/")) return BODY_LIMITS.connector;
  return BODY_LIMITS.device;
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `The body is larger than ${maxBytes} bytes`, { max_bytes: maxBytes });
}

/** Rejects on Content-Length alone, before a byte of the body is read. */
export function checkDeclaredLength(request: Request, maxBytes: number): void {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
}

/** Reads the body, stopping as soon as it passes maxBytes (chunked bodies have no Content-Length). */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  checkDeclaredLength(request, maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

export function isJsonContentType(header: string | null): boolean {
  if (!header) return false;
  const mediaType = header.split(";")[0]!.trim().toLowerCase();
  return mediaType === "application/json";
}

/** Whether the request claims to carry a body at all. */
function declaresBody(request: Request): boolean {
  const len = request.headers.get("content-length");
  if (len !== null) return Number(len) > 0;
  return request.headers.has("transfer-encoding") || request.body !== null;
}

/** A request with a body must say it is JSON: 415 before reading it. */
export function checkContentType(request: Request): void {
  if (declaresBody(request) && !isJsonContentType(request.headers.get("content-type"))) {
    throw new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json");
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Parses raw bytes as JSON; an empty body reads as {} so that all-optional bodies may be empty. */
export function parseJsonBytes(raw: Uint8Array): unknown {
  if (raw.byteLength === 0) return {};
  try {
    return JSON.parse(decoder.decode(raw));
  } catch {
    throw new ApiError("malformed_json", "The body is not valid UTF-8 JSON");
  }
}

/**
 * Elysia `parse` hook for every route with a JSON body: 415, 413, raw bytes kept on the request
 * info, then JSON. Routes pass it explicitly (`parse: jsonBody`) so that no body ever reaches a
 * handler through Elysia's default parsers.
 */
export async function jsonBody({ request }: { request: Request }): Promise<unknown> {
  checkContentType(request);
  const raw = await readBodyLimited(request, bodyLimitFor(new URL(request.url).pathname));
  infoOf(request).rawBody = raw;
  return parseJsonBytes(raw);
}
