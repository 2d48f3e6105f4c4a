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

/** The headers of a signed request (the DeviceSignature scheme; the Device section says how to sign). */
export const SIGNATURE_PARAMETERS: Record<string, unknown>[] = [
  {
    name: "X-Device-Id",
    in: "header",
    required: true,
    description: "The `device_id` received on activation",
    schema: { type: "string" },
    example: "dev_3VwQ8fK2pL9xR4tN7mZc",
  },
  {
    name: "X-Timestamp",
    in: "header",
    required: true,
    description: "Epoch milliseconds of the request, as decimal text, within ±300 000 ms of server time",
    schema: { type: "string", pattern: "^-?[0-9]+$" },
    example: "1795262400000",
  },
  {
    name: "X-Signature",
    in: "header",
    required: true,
    description: "Lower-case hex HMAC-SHA256 of the string to sign, keyed with the device secret (Device section)",
    schema: { type: "string", pattern: "^[0-9a-fA-F]{64}$" },
    example: "5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592",
  },
  {
    name: "X-Signature-Alg",
    in: "header",
    required: true,
    description: "Always `HMAC-SHA256`",
    schema: { type: "string", enum: ["HMAC-SHA256"] },
    example: "HMAC-SHA256",
  },
];
