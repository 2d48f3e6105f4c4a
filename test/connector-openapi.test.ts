// The OpenAPI document describes every connector route: schemas, pasteable examples, every error
// it can answer, and the connector key as its security scheme.
import { afterAll, expect, test } from "bun:test";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());
const doc = (await t.request("GET", "/docs/json")).body;

/** A schema with its $ref (to components.schemas) followed. */
const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema);

const OPERATIONS: [string, string, number, string[]][] = [
  ["post", "/connector/v1/orders", 200, ["invalid_request", "unsupported_currency", "order_already_matched", "unique_amount_unavailable", "payload_too_large", "unsupported_media_type", "malformed_json"]],
  ["get", "/connector/v1/orders", 200, ["invalid_cursor", "invalid_request"]],
  ["get", "/connector/v1/orders/{id}", 200, ["order_not_found"]],
  ["get", "/connector/v1/matches", 200, ["invalid_cursor", "invalid_request"]],
  ["post", "/connector/v1/matches/ack", 200, ["invalid_cursor", "invalid_request"]],
  ["post", "/connector/v1/matches", 201, ["order_not_found", "event_not_found", "already_matched", "order_cancelled", "event_is_duplicate"]],
  ["get", "/connector/v1/events", 200, ["invalid_cursor", "invalid_request"]],
  ["get", "/connector/v1/events/{event_id}", 200, ["event_not_found", "invalid_request"]],
  ["get", "/connector/v1/devices", 200, []],
  ["get", "/connector/v1/notifications", 200, ["invalid_cursor", "invalid_request"]],
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
  expect(resolve(ok.schema).type).toBe("object");
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

test("request examples pasted as they are, days after the document was made, answer as documented", async () => {
  t.clock.advance(3 * 24 * 3600_000); // the examples carry no time that could go stale
  const ten = t.tenant();
  const headers = { authorization: `Bearer ${ten.keys.test}` };
  const sync = doc.paths["/connector/v1/orders"].post.requestBody.content["application/json"].example;
  const res = await t.request("POST", "/connector/v1/orders", { headers, body: sync });
  expect(res.status).toBe(200);
  const pay = doc.paths["/connector/v1/test/payments"].post;
  const paid = await t.request("POST", "/connector/v1/test/payments", { headers, body: pay.requestBody.content["application/json"].example });
  expect(paid.status).toBe(201);
  expect(paid.body.match).toEqual(pay.responses["201"].content["application/json"].example.match);
});

test("a test payment without occurred_at is paid now, and its retry with the same event_id is a replay", async () => {
  const ten = t.tenant();
  const headers = { authorization: `Bearer ${ten.keys.test}`, "idempotency-key": "retry-me" };
  const body = { kind: "payment.received", source: "plin", amount: 777, currency: "PEN" };
  const first = await t.request("POST", "/connector/v1/test/payments", { headers, body });
  expect(first.status).toBe(201);
  const stored = t.store.sqlite.query<{ occurred_at: number }, [string]>("SELECT occurred_at FROM events WHERE event_id = ?").get("retry-me");
  expect(stored!.occurred_at).toBe(t.clock.now());
  t.clock.advance(60_000);
  const again = await t.request("POST", "/connector/v1/test/payments", { headers, body });
  expect(again.status).toBe(201);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(again.body).toEqual(first.body);
});

test("every property of every schema says what it is, and no schema carries an $id", () => {
  const undescribed: string[] = [];
  const visit = (node: any, path: string) => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${path}/${i}`));
    if (!node || typeof node !== "object") return;
    if ("$id" in node) undescribed.push(`${path}: $id`);
    if (node.properties) {
      for (const [k, v] of Object.entries<any>(node.properties)) if (!v.$ref && !v.description) undescribed.push(`${path}/properties/${k}`);
    }
    for (const [k, v] of Object.entries(node)) if (k !== "example" && k !== "examples") visit(v, `${path}/${k}`);
  };
  visit(doc, "#");
  expect(undescribed).toEqual([]);
});

test("objects are named schemas, every response says X-Request-Id, and servers is where the document was asked", async () => {
  for (const name of ["Order", "OrdersPage", "Match", "Payment", "PaymentWithCandidates", "Device", "DeviceHealth", "License", "Problem", "FieldError", "Activation", "HeartbeatRequest", "EventReceipt"]) {
    expect(doc.components.schemas[name]?.type).toBe("object");
  }
  expect(doc.paths["/connector/v1/orders/{id}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Order" });
  for (const item of Object.values<any>(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const response of Object.values<any>(op.responses)) expect(response.headers["X-Request-Id"]).toBeDefined();
      expect(op.responses["405"]).toBeDefined();
      if (op.responses["429"]) expect(Object.keys(op.responses["429"].headers)).toEqual(expect.arrayContaining(["Retry-After", "RateLimit-Policy", "RateLimit"]));
    }
  }
  expect(doc.paths["/device/v1/events"].post.responses["409"].headers["Retry-After"]).toBeDefined();
  expect(doc.servers).toEqual([{ url: "http://localhost", description: "This box" }]);
  const viaIp = await t.send(new Request("http://127.0.0.1:8443/docs/json"));
  expect(viaIp.body.servers[0].url).toBe("http://127.0.0.1:8443");
  expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual(["Connector", "Webhooks", "Device", "System"]);
});

test("the lists for people (contract §19): a repeatable status, the candidates' caps written out, examples that are what the routes answer", () => {
  const list = doc.paths["/connector/v1/orders"].get;
  const status = list.parameters.find((p: any) => p.name === "status");
  expect(status).toMatchObject({ in: "query", style: "form", explode: true, schema: { type: "array", items: { enum: ["pending", "matched", "cancelled", "expired"] } } });
  const page = list.responses["200"].content["application/json"];
  expect(page.schema).toEqual({ $ref: "#/components/schemas/OrdersPage" });
  expect(page.example.next_cursor).toMatch(/^o[A-Za-z0-9_-]{118}$/);
  const ids = page.example.data.map((o: any) => [o.created_at, o.id]);
  expect(ids).toEqual([...ids].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1))); // newest first, as documented

  const one = doc.paths["/connector/v1/events/{event_id}"].get;
  expect(one.description).toContain("50");
  expect(one.description).toContain("500");
  const payment = resolve(one.responses["200"].content["application/json"].schema);
  expect(Object.keys(payment.properties)).toEqual([...Object.keys(doc.components.schemas.Payment.properties), "candidates"]);
  expect(payment.properties.candidates.items).toEqual({ $ref: "#/components/schemas/Order" });
  expect(one.parameters.map((p: any) => p.name).sort()).toEqual(["device_id", "event_id"]);
});

test("a route with path parameters keeps its own parameters too (the plugin keeps only the path's)", () => {
  const names = (path: string) => doc.paths[path].get.parameters.map((p: any) => `${p.in}:${p.name}`);
  expect(names("/connector/v1/webhooks/{id}/messages")).toEqual(["path:id", "query:status", "query:after", "query:limit"]);
  expect(names("/connector/v1/events/{event_id}")).toEqual(["path:event_id", "query:device_id"]);
  expect(names("/connector/v1/orders/{id}")).toEqual(["path:id"]);
  expect(JSON.stringify(doc)).not.toContain("x-own-parameters");
});
