// Documentation pieces every signed device route shares (contract §5).
import type { ErrorSpec } from "../http/openapi";

const LICENSE_SUSPENDED = { status: "suspended", reason: "suspended", plan: "standard", max_devices: 5, devices_in_use: 2, expires_at: null };

/** The answers of the signature check, in the order it makes them. */
export const DEVICE_ERRORS: ErrorSpec[] = [
  "missing_auth_headers",
  "unsupported_signature_alg",
  ["timestamp_out_of_window", { server_time: 1795262400000 }],
  "unknown_device",
  "invalid_signature",
  "device_revoked",
  ["license_suspended", { license: LICENSE_SUSPENDED }],
  ["rate_limited", { retry_after: 1 }],
];

/** X-Device-Id, X-Timestamp and X-Signature are the security schemes; the algorithm is a header. */
export const SIGNATURE_PARAMETERS: Record<string, unknown>[] = [
  {
    name: "X-Signature-Alg",
    in: "header",
    required: true,
    description: "Always `HMAC-SHA256`; see the DeviceSignature security scheme for the signed string",
    schema: { type: "string", enum: ["HMAC-SHA256"] },
    example: "HMAC-SHA256",
  },
];
