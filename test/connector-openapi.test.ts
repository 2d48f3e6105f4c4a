// The OpenAPI document describes every connector route: schemas, pasteable examples, every error
// it can answer, and the connector key as its security scheme.
import { afterAll, expect, test } from "bun:test";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());
const doc = (await t.request("GET", "/docs/json")).body;

const OPERATIONS: [string, string, number, string[]][] = [
  ["post", "/connector/v1/orders", 200, ["invalid_request", "unsupported_currency", "order_already_matched", "unique_amount_unavailable", "payload_too_large", "unsupported_media_type", "malformed_json"]],
  ["get", "/connector/v1/orders/{id}", 200, ["order_not_found"]],
  ["get", "/connector/v1/matches", 200, ["invalid_cursor", "invalid_request"]],
  ["post", "/connector/v1/matches/ack", 200, ["invalid_cursor", "invalid_request"]],
  ["post", "/connector/v1/matches", 201, ["order_not_found", "event_not_found", "already_matched", "order_cancelled", "event_is_duplicate"]],
  ["get", "/connector/v1/events", 200, ["invalid_cursor", "invalid_request"]],
  ["get", "/connector/v1/devices", 200, []],
  ["post", "/connector/v1/test/payments", 201, ["test_mode_only", "invalid_request", "unsupported_currency", "unsupported_event_kind", "event_too_old", "idempotency_key_reused"]],
];

const examplesOf = (op: any, status: number): string[] => Object.keys(op.responses[String(status)]?.content?.["application/problem+json"]?.examples ?? {});

test.each(OPERATIONS)("%s %s", (method, path, success, errors) => {
  const op = doc.paths[path]?.[method];
  expect(op).toBeDefined();
  expect(op.tags).toEqual(["Connector"]);
  expect(op.summary).toBeTruthy();
  expect(op.description).toBeTruthy();
  expect(op.security).toEqual([{ ConnectorKey: [] }, { ConnectorKeyBasic: [] }]);
  const ok = op.responses[String(success)].content["application/json"];
  expect(ok.schema.type).toBe("object");
  expect(ok.example).toBeDefined();
  if (method === "post") {
    expect(op.requestBody.content["application/json"].schema).toBeDefined();
    expect(op.requestBody.content["application/json"].example).toBeDefined();
    expect(examplesOf(op, 413)).toEqual(["payload_too_large"]);
    expect(op.responses["413"].content["application/problem+json"].examples.payload_too_large.value.max_bytes).toBe(1024 * 1024);
  }
  expect(examplesOf(op, 401).sort()).toEqual(["api_key_invalid", "api_key_missing"]);
  expect(examplesOf(op, 429)).toEqual(["rate_limited"]);
  expect(examplesOf(op, 503)).toEqual(["service_unavailable"]);
  expect(op.responses["503"].headers["Retry-After"]).toBeDefined();
  const documented = Object.values(op.responses).flatMap((r: any) => Object.keys(r.content?.["application/problem+json"]?.examples ?? {}));
  for (const code of errors) expect(documented).toContain(code);
});

test("the bearer scheme is declared", () => {
  expect(doc.components.securitySchemes.ConnectorKey).toMatchObject({ type: "http", scheme: "bearer" });
});

test("request examples are accepted by the routes they document", async () => {
  const ten = t.tenant();
  const headers = { authorization: `Bearer ${ten.keys.test}` };
  const sync = doc.paths["/connector/v1/orders"].post.requestBody.content["application/json"].example;
  const res = await t.request("POST", "/connector/v1/orders", { headers, body: { orders: sync.orders.map((o: any) => ({ ...o, expires_at: undefined })) } });
  expect(res.status).toBe(200);
  const pay = doc.paths["/connector/v1/test/payments"].post.requestBody.content["application/json"].example;
  const paid = await t.request("POST", "/connector/v1/test/payments", { headers, body: { ...pay, occurred_at: t.clock.now() } });
  expect(paid.status).toBe(201);
});
