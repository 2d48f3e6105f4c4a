// GET /docs/json documents every device endpoint: request and response schemas, examples, and
// every error each one can answer (contract §1, §4–§7).
import { afterAll, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ActivationRequestSchema, HeartbeatRequestSchema } from "../src/device/model";
import { PaymentEventSchema } from "../src/payments/model";
import { NotificationEventSchema } from "../src/notifications/model";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());
const doc = (await t.request("GET", "/docs/json")).body;

/** A schema with its $ref (to components.schemas) followed. */
const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema);

/** Every operation also answers an unknown path and a wrong method (contract §2.5). */
const ANY_ROUTE = { "404": ["not_found"], "405": ["method_not_allowed"] };

/** status → error codes documented for an operation. */
function documentedErrors(op: any): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [status, res] of Object.entries<any>(op.responses)) {
    const examples = res.content?.["application/problem+json"]?.examples;
    if (examples) out[status] = Object.values<any>(examples).map((e) => e.value.code).sort();
  }
  return out;
}

const SIGNED = {
  ...ANY_ROUTE,
  "401": ["invalid_signature", "missing_auth_headers", "timestamp_out_of_window", "unknown_device", "unsupported_signature_alg"],
  "403": ["device_revoked", "license_suspended"],
  "413": ["payload_too_large"],
  "415": ["unsupported_media_type"],
  "429": ["rate_limited"],
  "500": ["internal_error"],
  "503": ["service_unavailable"],
};

test.each<[string, string, string, Record<string, string[]>]>([
  [
    "post",
    "/device/v1/activation",
    "201",
    {
      ...ANY_ROUTE,
      "400": ["invalid_request", "malformed_json"],
      "403": ["device_limit_reached", "license_suspended"],
      "404": ["activation_code_unknown", "not_found"],
      "410": ["activation_code_expired", "activation_code_used"],
      "413": ["payload_too_large"],
      "415": ["unsupported_media_type"],
      "429": ["rate_limited"],
      "500": ["internal_error"],
      "503": ["service_unavailable"],
    },
  ],
  [
    "post",
    "/device/v1/events",
    "201",
    {
      ...SIGNED,
      "400": ["event_too_old", "idempotency_key_mismatch", "idempotency_key_missing", "invalid_request", "malformed_json", "unsupported_currency", "unsupported_event_kind"],
      "409": ["idempotency_key_in_use"],
      "422": ["idempotency_key_reused"],
    },
  ],
  ["post", "/device/v1/heartbeat", "200", { ...SIGNED, "400": ["invalid_request", "malformed_json"] }],
  ["get", "/device/v1/time", "200", { ...ANY_ROUTE, "500": ["internal_error"] }],
])("%s %s: success %s and every error code", (method, path, success, errors) => {
  const op = doc.paths[path]?.[method];
  expect(op).toBeDefined();
  expect(op.tags).toEqual(["Device"]);
  expect(op.responses[success].content["application/json"].schema).toBeDefined();
  const answer = op.responses[success].content["application/json"];
  expect(answer.example ?? answer.examples).toBeDefined();
  expect(documentedErrors(op)).toEqual(errors);
  if ("401" in errors) {
    expect(op.security).toEqual([{ DeviceSignature: [] }]);
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["X-Device-Id", "X-Timestamp", "X-Signature-Alg", "X-Signature"]));
    expect(op.responses["401"].headers["WWW-Authenticate"]).toBeDefined();
  }
  if (method === "post") {
    const body = op.requestBody.content["application/json"];
    expect(body.example ?? body.examples).toBeDefined();
  }
});

test("the documented request examples are valid bodies", () => {
  const example = (path: string) => doc.paths[path].post.requestBody.content["application/json"].example;
  expect(TypeCompiler.Compile(ActivationRequestSchema).Check(example("/device/v1/activation"))).toBe(true);
  const events = doc.paths["/device/v1/events"].post.requestBody.content["application/json"].examples;
  // One example per wallet format of contract §16, and the payment event; each a valid body of its kind.
  expect(Object.keys(events)).toEqual(["payment", "yape", "yape_full_name", "plin_interbank", "plin_bbva", "bbva_qr", "not_a_payment", "redacted"]);
  for (const [name, { value }] of Object.entries<{ value: { kind: string } }>(events)) {
    const schema = name === "payment" ? PaymentEventSchema : NotificationEventSchema;
    expect(TypeCompiler.Compile(schema).Check(value)).toBe(true);
  }
  expect(TypeCompiler.Compile(HeartbeatRequestSchema).Check(example("/device/v1/heartbeat"))).toBe(true);
});

test("the heartbeat's text fields are documented with their bound", () => {
  const props = resolve(doc.paths["/device/v1/heartbeat"].post.requestBody.content["application/json"].schema).properties;
  for (const field of ["network", "app_version", "os_version", "news_after"]) {
    // a string of at most 256, or null (the same as leaving it out)
    const [text, none] = props[field].anyOf;
    expect(none).toEqual({ type: "null" });
    expect(text.type).toBe("string");
    expect(text.maxLength).toBe(256);
    expect(text.minLength).toBeUndefined();
  }
});

test("integers render as integers, not string-or-integer", () => {
  const kinds = resolve(doc.paths["/device/v1/events"].post.requestBody.content["application/json"].schema).anyOf.map(resolve);
  const props = kinds.find((k: any) => k.properties.amount).properties;
  expect(props.amount.type).toBe("integer");
  expect(props.occurred_at.type).toBe("integer");
  expect(props.amount.anyOf).toBeUndefined();
});

test("the events operation documents Idempotency-Key and Idempotent-Replayed", () => {
  const op = doc.paths["/device/v1/events"].post;
  expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["Idempotency-Key", "X-Signature-Alg"]));
  expect(op.responses["201"].headers["Idempotent-Replayed"]).toBeDefined();
  expect(doc.paths["/device/v1/activation"].post.responses["201"].headers["Cache-Control"]).toBeDefined();
  expect(doc.paths["/device/v1/activation"].post.responses["413"].content["application/problem+json"].examples.payload_too_large.value.max_bytes).toBe(4096);
});
