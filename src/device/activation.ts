// POST /device/v1/activation and GET /device/v1/time (contract §4): a phone links itself with a
// one-time code and receives its id and secret.
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { base64url } from "../ids";
import { BODY_LIMITS, jsonBody } from "../http/body";
import { DomainError, type FieldError } from "../errors";
import { describe } from "../http/openapi";
import { infoOf } from "../http/request-info";
import { invalid, validator } from "../http/validation";
import { CODE_ALPHABET, normalizeCode } from "./codes";
import { checkActivation, SECRET_BYTES, type NewDevice, type Refusal } from "./activation.service";
import { ActivationRequestSchema, ActivationResponseSchema, DEVICE_CONFIG, TimeResponseSchema } from "./model";

const checkBody = validator(ActivationRequestSchema);

const codeError: FieldError = {
  field: "/activation_code",
  message: `must be 12 letters of ${CODE_ALPHABET} (case and spaces or hyphens do not matter)`,
};

/** Step 1 of contract §4: the body, then the code's form. Returns the normalised letters. */
function readActivation(body: unknown): { letters: string | null; errors: FieldError[]; device?: NewDevice } {
  const typed = body as Record<string, unknown> | null;
  const rawCode = typed && typeof typed === "object" ? typed.activation_code : undefined;
  const letters = typeof rawCode === "string" ? normalizeCode(rawCode) : null;
  try {
    const v = checkBody(body);
    if (!letters) return { letters, errors: [codeError] };
    return { letters, errors: [], device: { label: v.device_label, platform: v.platform, appVersion: v.app_version, osVersion: v.os_version } };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    // The code's own sentence, rather than the schema's pattern, whenever the code is what is wrong.
    const errors = ((e.extra.errors as FieldError[]) ?? []).filter((x) => x.field !== codeError.field);
    if (!letters) errors.unshift(codeError);
    return { letters, errors };
  }
}

function apiBaseUrl(request: Request, publicUrl: string | undefined): string {
  if (publicUrl) return `${publicUrl}/device/v1`;
  const url = new URL(request.url);
  const host = request.headers.get("host") ?? url.host;
  return `${url.protocol}//${host}/device/v1`;
}

export const activationRoutes = (deps: AppDeps) => {
  const attempts = deps.limiters.activationFailure;
  return new Elysia()
    .post(
      "/activation",
      async ({ request, body }) => {
        const address = infoOf(request).clientAddress;
        // Each 400 caused by the code, 404 and 410 spends one attempt (contract §4, step 2).
        const spend = () => {
          infoOf(request).rateLimitHeaders = attempts.headers(attempts.take(address));
        };

        const { letters, errors, device } = readActivation(body);
        if (!letters) spend();
        if (!letters || !device) throw invalid(errors);
        attempts.ensureAvailable(address);

        const pre = checkActivation(deps.store.db, deps.clock.now(), letters);
        if ("refused" in pre) throw refusal(pre, spend);

        // Encrypting is async: do it before the transaction, which must stay synchronous.
        const secret = base64url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
        const sealed = await deps.secretBox.seal(secret);
        const done = await deps.writer.run("activateDevice", { now: deps.clock.now(), letters, device, sealedSecret: sealed });
        if ("refused" in done) throw refusal(done, spend);

        const info = infoOf(request);
        info.tenantId = done.tenantId;
        info.environment = done.environment;
        info.deviceId = done.deviceId;
        return Response.json(
          {
            device_id: done.deviceId,
            secret,
            tenant_name: done.tenantName,
            environment: done.environment,
            api_base_url: apiBaseUrl(request, deps.config.publicUrl),
            tls_fingerprint: deps.config.tlsFingerprint ?? null,
            license: done.license,
            server_time: deps.clock.now(),
            config: DEVICE_CONFIG,
          },
          { status: 201, headers: { "cache-control": "no-store" } },
        );
      },
      {
        parse: jsonBody,
        ...describe({
          tag: "Device",
          summary: "Activate a phone with a one-time code",
          operationId: "activateDevice",
          description: [
            "Unsigned. Outcomes are checked in this order: `400 invalid_request` (body, or a code that is not 12 letters of the alphabet);",
            "`429 rate_limited` when this address has no failed attempts left (each 400 caused by the code, 404 and 410 spends one of 10, refilling one per 60 s);",
            "`404 activation_code_unknown`, `410 activation_code_used`, `410 activation_code_expired`;",
            "`403 license_suspended` or `403 device_limit_reached` (the code is not spent);",
            "else `201` with the device's id and secret, shown this once (`Cache-Control: no-store`).",
            "A code activates exactly one device; repeating a successful activation answers `410 activation_code_used`.",
            "The app takes the code and the box's address from the pairing URI (see the Device section) and sends this request only over TLS whose certificate has the URI's `fp`; the answer's `tls_fingerprint` is the fingerprint to pin.",
          ].join(" "),
          body: ActivationRequestSchema,
          bodyExample: { activation_code: "wdjb mjht kxqp", device_label: "Caja 1", app_version: "1.4.0", platform: "android", os_version: "14" },
          success: {
            status: 201,
            description: "Linked. Keep `secret` on the phone; it is never shown again.",
            schema: ActivationResponseSchema,
            headers: { "Cache-Control": { description: "`no-store`", schema: { type: "string" } } },
            example: {
              device_id: "dev_3VwQ8fK2pL9xR4tN7mZc",
              secret: "q9v3XJ2mB7tKpL0wZcR4yH8sNdF6gA1eUoI5jTbVxQk",
              tenant_name: "Bodega Rosa",
              environment: "live",
              api_base_url: "https://192.168.1.20:8443/device/v1",
              tls_fingerprint: "bd5d8d31c0a2f7e94b1d6c3a8e5f2b7d9c4e1a6f3b8d2c7e5a9f1b4d6c8e2a09",
              license: { status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 1, expires_at: null },
              server_time: 1795262400000,
              config: DEVICE_CONFIG,
            },
          },
          errors: [
            ["invalid_request", { errors: [codeError] }],
            ["rate_limited", { retry_after: 42 }],
            "activation_code_unknown",
            "activation_code_used",
            "activation_code_expired",
            ["license_suspended", { license: { status: "suspended", reason: "suspended", plan: "standard", max_devices: 5, devices_in_use: 1, expires_at: null } }],
            ["device_limit_reached", { license: { status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 5, expires_at: null } }],
            ["payload_too_large", { max_bytes: BODY_LIMITS.activation }],
          ],
        }),
      },
    )
    .get("/time", () => Response.json({ server_time: deps.clock.now() }), {
      ...describe({
        tag: "Device",
        summary: "Server time, to measure the phone's clock offset",
        database: false,
        operationId: "getServerTime",
        description: "Unsigned. Signed requests must carry an `X-Timestamp` within ±300 000 ms of this clock.",
        success: { status: 200, description: "The server's clock", schema: TimeResponseSchema, example: { server_time: 1795262400000 } },
      }),
    });
};

function refusal(r: Refusal, spend: () => void): DomainError {
  switch (r.refused) {
    case "activation_code_unknown":
      spend();
      return new DomainError(r.refused, "No such activation code; check it or ask for a new one");
    case "activation_code_used":
      spend();
      return new DomainError(r.refused, "This code has already linked a phone; ask for a new one");
    case "activation_code_expired":
      spend();
      return new DomainError(r.refused, "This code has expired; ask for a new one");
    case "license_suspended":
      return new DomainError(r.refused, `The shop's license is suspended (${r.license.reason})`, { license: r.license });
    case "device_limit_reached":
      return new DomainError(r.refused, `The shop already has ${r.license.max_devices} phones; unlink one first`, { license: r.license });
  }
}
