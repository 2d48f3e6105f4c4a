// Authentication of signed device requests (contract §5), as the Elysia `parse` hook of every signed
// route: the signature is over the raw body bytes, so it is checked before the body is parsed, and
// an unauthenticated body is never parsed at all.
import type { Statement } from "bun:sqlite";
import type { AppDeps } from "../deps";
import { BODY_LIMITS, checkContentType, parseJsonBytes, readBodyLimited } from "../http/body";
import { ApiError } from "../http/errors";
import { infoOf } from "../http/request-info";
import { perConnection } from "../store/db";
import type { SecretBox } from "../store/secret-box";
import type { Environment } from "../store/schema";
import { getLicense, licenseSuspension } from "../tenants/service";
import { MAX_CLOCK_SKEW_MS, requestTarget, signatureMatches, signRequest, SIGNATURE_ALG, SIGNED_HEADERS } from "./signing";

/** Who sent a signed request, set by the parse hook for the handler. */
export interface DeviceAuth {
  deviceId: string;
  tenantId: string;
  environment: Environment;
  label: string;
  /** The signed X-Timestamp: liveness is measured with it, never with arrival time (contract §5). */
  timestamp: number;
}

const WWW_AUTHENTICATE = { "www-authenticate": SIGNATURE_ALG };

interface DeviceRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  label: string;
  status: "active" | "revoked";
  secret_enc: string;
  license_status: "active" | "suspended";
  license_expires_at: number | null;
}

const auths = new WeakMap<Request, DeviceAuth>();

/** The authenticated device of a request that passed signedJsonBody. */
export function deviceAuthOf(request: Request): DeviceAuth {
  const auth = auths.get(request);
  if (!auth) throw new Error("deviceAuthOf: the route has no signedJsonBody parse hook");
  return auth;
}

/**
 * The parse hook of a signed route. Checks in the order of contract §5: headers and algorithm,
 * timestamp window, device and signature, revocation and license, the device's bucket. Then
 * 415 and JSON. Every 401 spends from the caller address's failure bucket (contract §2.7), never
 * from a device's allowance.
 */
export function signedJsonBody(deps: AppDeps) {
  const secrets = secretCacheOf(deps.store);
  return async ({ request }: { request: Request }): Promise<unknown> => {
    const info = infoOf(request);
    const fail = (code: "missing_auth_headers" | "unsupported_signature_alg" | "timestamp_out_of_window" | "unknown_device" | "invalid_signature", detail: string, extra: Record<string, unknown> = {}) => {
      const bucket = deps.limiters.authFailure.take(info.clientAddress);
      if (!bucket.ok) return deps.limiters.authFailure.limitedError(bucket);
      return new ApiError(code, detail, extra, WWW_AUTHENTICATE);
    };

    const h = request.headers;
    const deviceId = h.get(SIGNED_HEADERS.deviceId);
    const timestampText = h.get(SIGNED_HEADERS.timestamp);
    const alg = h.get(SIGNED_HEADERS.alg);
    const signature = h.get(SIGNED_HEADERS.signature);
    if (!deviceId || !timestampText || !alg || !signature) {
      const missing = Object.entries({ "X-Device-Id": deviceId, "X-Timestamp": timestampText, "X-Signature-Alg": alg, "X-Signature": signature })
        .filter(([, v]) => !v)
        .map(([k]) => k);
      throw fail("missing_auth_headers", `Sign the request (/docs, Device section: Signing device requests); missing: ${missing.join(", ")}`);
    }
    // Exactly `HMAC-SHA256` (contract §5): no other case or spelling.
    if (alg !== SIGNATURE_ALG) throw fail("unsupported_signature_alg", `X-Signature-Alg must be exactly ${SIGNATURE_ALG}`);

    const now = deps.clock.now();
    const timestamp = /^\d{1,16}$/.test(timestampText) ? Number(timestampText) : NaN;
    if (!Number.isSafeInteger(timestamp) || Math.abs(timestamp - now) > MAX_CLOCK_SKEW_MS) {
      throw fail(
        "timestamp_out_of_window",
        `X-Timestamp must be epoch milliseconds within ${MAX_CLOCK_SKEW_MS} ms of server time; set the clock from server_time`,
        { server_time: now },
      );
    }

    const device = statementsOf(deps.store).device.get(deviceId);
    if (!device) throw fail("unknown_device", "No device with this X-Device-Id; activate the phone again");
    const raw = await readBodyLimited(request, BODY_LIMITS.device);
    const secret = await secrets.get(device, deps.secretBox);
    const expected = signRequest(secret, timestampText, request.method, requestTarget(request.url), raw);
    if (!signatureMatches(expected, signature.trim())) {
      throw fail("invalid_signature", "X-Signature does not match; sign timestamp, method, path and the SHA-256 of the exact body bytes");
    }

    // Authenticated from here: logs may name the device.
    info.deviceId = device.id;
    info.tenantId = device.tenant_id;
    info.environment = device.environment;
    // Status and license are read from the database on every request, so that a revocation or
    // suspension made with the CLI takes effect at once.
    if (device.status === "revoked") throw new ApiError("device_revoked", "This phone was unlinked; activate it again with a new code");
    if (licenseSuspension(device.license_status, device.license_expires_at, now) !== null) {
      const license = getLicense(deps.store.db, deps.clock, device.tenant_id);
      throw new ApiError("license_suspended", `The shop's license is suspended (${license.reason})`, { license });
    }
    const bucket = deps.limiters.device.consume(device.id);
    info.rateLimitHeaders = deps.limiters.device.headers(bucket);

    auths.set(request, { deviceId: device.id, tenantId: device.tenant_id, environment: device.environment, label: device.label, timestamp });
    checkContentType(request);
    info.rawBody = raw;
    return parseJsonBytes(raw);
  };
}

// ---- device lookup and secrets

interface Statements {
  device: Statement<DeviceRow, [string]>;
}

const statementsOf = perConnection(
  (client): Statements => ({
    device: client.prepare(
      `SELECT d.id, d.tenant_id, d.environment, d.label, d.status, d.secret_enc, t.license_status, t.license_expires_at
         FROM devices d JOIN tenants t ON t.id = d.tenant_id WHERE d.id = ?`,
    ),
  }),
);

/** Decrypted secrets by device id: a secret never changes, so it is opened once per process. */
class SecretCache {
  private readonly map = new Map<string, string>();
  async get(device: Pick<DeviceRow, "id" | "secret_enc">, box: SecretBox): Promise<string> {
    let secret = this.map.get(device.id);
    if (secret === undefined) {
      secret = await box.open(device.secret_enc);
      this.map.set(device.id, secret);
    }
    return secret;
  }
}

const secretCacheOf = perConnection(() => new SecretCache());
