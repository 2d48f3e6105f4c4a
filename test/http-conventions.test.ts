// Conventions of both surfaces (contract §2) through app.handle: request ids, Date, problem+json,
// 404/405/413/415, validation, 429 headers, 5xx bodies, one log line per request, /healthz, /docs.
// A few probe routes under /__test are mounted on the app's own Elysia instance, so they run through
// exactly the pipeline and error handling the real routes use.
import { afterAll, describe, expect, test } from "bun:test";
import { t as elysiaT } from "elysia";
import { ApiError } from "../src/http/errors";
import { jsonBody } from "../src/http/body";
import { infoOf } from "../src/http/request-info";
import { POLICIES, RateLimiter } from "../src/http/rate-limit";
import { T } from "../src/http/schemas";
import { checkCurrency, validator } from "../src/http/validation";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

const probeLimiter = new RateLimiter({ name: "probe", capacity: 2, refillPerSecond: 1 }, t.clock);
const Payment = T.Object({
  amount: T.Integer({ minimum: 1, maximum: 100_000_000 }),
  currency: T.String(),
  payer: T.Optional(T.Object({ name: T.String({ maxLength: 8 }) })),
});
const checkPayment = validator(Payment);

t.app.elysia
  .post(
    "/__test/echo",
    ({ body }) => {
      const p = checkPayment(body);
      checkCurrency(p.currency);
      return Response.json(p);
    },
    { parse: jsonBody as never }, // the app's Elysia is typed loosely (Elysia<any, …>); the hook is the real one
  )
  .post("/__test/busy-in-parse", () => Response.json({ ok: true }), {
    // as when a phone's or key's lookup in the parse hook finds the database locked
    parse: (() => {
      throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    }) as never,
  })
  .get("/__test/boom", () => {
    throw new Error("SQLITE_ERROR: no such column: secret_enc in SELECT secret_enc FROM devices");
  })
  .get("/__test/limited", ({ request }) => {
    const info = infoOf(request);
    const state = probeLimiter.consume(info.clientAddress);
    info.rateLimitHeaders = probeLimiter.headers(state);
    return Response.json({ ok: true });
  })
  .get("/__test/query", ({ query }) => Response.json(query), { query: elysiaT.Object({ limit: elysiaT.Numeric({ minimum: 1 }) }) });

describe("request ids and Date", () => {
  test("every answer has a generated req_ id and the Date of the app's clock", async () => {
    const res = await t.request("GET", "/healthz");
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(res.headers.get("date")).toBe(new Date(t.clock.now()).toUTCString());
    t.clock.advance(65_000);
    expect((await t.request("GET", "/nope")).headers.get("date")).toBe(new Date(t.clock.now()).toUTCString());
  });

  test("a client's valid X-Request-Id is echoed, in the header and the problem body", async () => {
    const id = "pos-42.retry_1";
    const res = await t.request("GET", "/nope", { headers: { "x-request-id": id } });
    expect(res.headers.get("x-request-id")).toBe(id);
    expect(res.body.request_id).toBe(id);
    const max = "a".repeat(64);
    expect((await t.request("GET", "/healthz", { headers: { "x-request-id": max } })).headers.get("x-request-id")).toBe(max);
  });

  test("an invalid one (too long, bad characters) is replaced", async () => {
    for (const bad of ["a".repeat(65), "has space", "semi;colon", "ñ", "a/b"]) {
      const res = await t.request("GET", "/healthz", { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    }
  });
});

describe("routing errors", () => {
  test("unknown path: 404 not_found as problem+json", async () => {
    const res = await t.request("GET", "/connector/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toEqual({
      type: "urn:cuadra:error:not_found",
      title: "Not found",
      status: 404,
      detail: expect.any(String),
      code: "not_found",
      request_id: res.headers.get("x-request-id"),
    });
  });

  test("known path, wrong method: 405 method_not_allowed with Allow", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const res = await t.request(method, "/healthz");
      expect(res.status).toBe(405);
      expect(res.body.code).toBe("method_not_allowed");
      expect(res.headers.get("allow")).toBe("GET");
    }
    // Paths with parameters count as known too.
    const asset = await t.request("DELETE", "/docs/assets/swagger-ui.css");
    expect(asset.status).toBe(405);
    expect(asset.headers.get("allow")).toBe("GET");
  });

  test("an unknown docs asset is a problem+json 404 too", async () => {
    const res = await t.request("GET", "/docs/assets/evil.js");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });
});

describe("bodies", () => {
  test("413 on Content-Length before routing, with the limit of the surface", async () => {
    const cases: [string, number][] = [
      ["/device/v1/activation", 4096],
      ["/device/v1/events", 65536],
      ["/connector/v1/orders", 1048576],
      ["/__test/echo", 65536],
    ];
    for (const [path, max] of cases) {
      const res = await t.send(
        new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(max + 1) }, body: "{}" }),
      );
      expect({ path, status: res.status, code: res.body.code, max_bytes: res.body.max_bytes }).toEqual({ path, status: 413, code: "payload_too_large", max_bytes: max });
    }
  });

  test("413 on the bytes read when there is no Content-Length (a stream)", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled++ === 100) return c.close();
        c.enqueue(chunk);
      },
    });
    const res = await t.send(new Request("http://localhost/__test/echo", { method: "POST", headers: { "content-type": "application/json" }, body: stream, duplex: "half" } as RequestInit));
    expect(res.status).toBe(413);
    expect(res.body.max_bytes).toBe(65536);
    expect(pulled).toBeLessThan(10);
  });

  test("415 when the body is not declared JSON; charset parameters are fine", async () => {
    const bad = await t.request("POST", "/__test/echo", { body: '{"amount":1,"currency":"PEN"}', headers: { "content-type": "text/plain" } });
    expect(bad.status).toBe(415);
    expect(bad.body.code).toBe("unsupported_media_type");
    const none = await t.send(new Request("http://localhost/__test/echo", { method: "POST", body: new TextEncoder().encode('{"amount":1,"currency":"PEN"}') }));
    expect(none.status).toBe(415);
    const ok = await t.request("POST", "/__test/echo", { body: '{"amount":1,"currency":"PEN"}', headers: { "content-type": "application/json; charset=UTF-8" } });
    expect(ok.status).toBe(200);
  });

  test("a body that is not JSON is 400 malformed_json", async () => {
    const res = await t.request("POST", "/__test/echo", { body: '{"amount":', headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("malformed_json");
  });

  test("validation failures are 400 invalid_request with JSON-pointer fields", async () => {
    const res = await t.request("POST", "/__test/echo", { body: { amount: 0, payer: { name: "Yanina Manrique" } } });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["/amount", "/currency", "/payer/name"]);
    for (const e of res.body.errors) expect(typeof e.message).toBe("string");
  });

  test("unknown fields are ignored, never rejected", async () => {
    const res = await t.request("POST", "/__test/echo", { body: { amount: 2500, currency: "PEN", tip: 3, payer: { name: "Ana", dni: "1" } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ amount: 2500, currency: "PEN", payer: { name: "Ana" } });
  });

  test("a currency other than PEN is 400 unsupported_currency", async () => {
    const res = await t.request("POST", "/__test/echo", { body: { amount: 2500, currency: "USD" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("unsupported_currency");
  });

  test("a schema Elysia checks itself (query) still answers 400 invalid_request, never 500", async () => {
    const res = await t.request("GET", "/__test/query?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect((await t.request("GET", "/__test/query?limit=3")).status).toBe(200);
  });
});

describe("rate limit headers", () => {
  test("RateLimit headers on success; 429 with Retry-After once the bucket is empty", async () => {
    const ip = "203.0.113.9";
    const first = await t.request("GET", "/__test/limited", { ip });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"probe";q=2;w=2');
    expect(first.headers.get("ratelimit")).toBe('"probe";r=1;t=1');
    await t.request("GET", "/__test/limited", { ip });
    const limited = await t.request("GET", "/__test/limited", { ip });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.headers.get("ratelimit")).toBe('"probe";r=0;t=2');
    expect((await t.request("GET", "/__test/limited", { ip: "203.0.113.10" })).status).toBe(200);
    t.clock.advance(1000);
    expect((await t.request("GET", "/__test/limited", { ip })).status).toBe(200);
  });
});

describe("5xx and logs", () => {
  test("an unexpected error is 500 with only code, title, status and request_id", async () => {
    const res = await t.request("GET", "/__test/boom");
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toEqual({ title: "Internal server error", status: 500, code: "internal_error", request_id: res.headers.get("x-request-id") });
    expect(res.text).not.toContain("SQLITE");
    expect(res.text).not.toContain("at ");
  });

  test("a locked database, even while authenticating in the parse hook, is 503 with Retry-After, not 400 or 500", async () => {
    const res = await t.request("POST", "/__test/busy-in-parse", { body: { a: 1 } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.body).toEqual({ title: "Service unavailable", status: 503, code: "service_unavailable", request_id: res.headers.get("x-request-id") });
  });

  test("one JSON log line per request with method, path, status, duration and request id", async () => {
    const before = t.logs.length;
    await t.request("GET", "/healthz?verbose=1", { headers: { "x-request-id": "log-check-1" } });
    const lines = t.logs.slice(before).map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEqual({
      time: new Date(t.clock.now()).toISOString(),
      level: "info",
      msg: "request",
      method: "GET",
      path: "/healthz",
      status: 200,
      duration_ms: expect.any(Number),
      request_id: "log-check-1",
    });
  });

  test("no secret ever reaches the log: headers, query strings and bodies are not logged", async () => {
    const secret = "sk_live_" + "Q".repeat(40);
    const before = t.logs.length;
    await t.request("POST", "/__test/echo", {
      body: { amount: 1, currency: "PEN", activation_code: "WDJB-MJHT-KXQP", secret },
      headers: { authorization: `Bearer ${secret}`, "x-signature": "deadbeef".repeat(8) },
    });
    await t.request("GET", `/connector/v1/orders?api_key=${secret}`, { headers: { authorization: `Basic ${btoa(secret + ":")}` } });
    await t.request("GET", "/__test/boom", { headers: { authorization: `Bearer ${secret}` } });
    const logged = t.logs.slice(before).join("\n");
    expect(t.logs.length - before).toBeGreaterThanOrEqual(3);
    for (const s of [secret, "QQQQQQQQ", "WDJB-MJHT-KXQP", "deadbeef", btoa(secret + ":")]) expect(logged).not.toContain(s);
    // The 500 is logged as an error line with what failed (never request data), plus its request line.
    expect(logged).toContain('"level":"error"');
  });
});

describe("/healthz and /docs", () => {
  test("/healthz is 200 ok with the version; 503 unavailable once the database cannot be used", async () => {
    const own = await makeTestApp();
    const ok = await own.request("GET", "/healthz");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "ok", version: expect.any(String) });
    own.reader.close(); // the app's connection
    const down = await own.request("GET", "/healthz");
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: "unavailable", version: ok.body.version });
    expect(down.headers.get("x-request-id")).toMatch(/^req_/);
    await own.close();
  });

  test("/docs names no other host, and every script and stylesheet it names loads", async () => {
    const page = await t.request("GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const refs = [...page.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.text).not.toMatch(/(?:src|href)\s*=\s*["']\/\//);
    for (const ref of refs) {
      const res = await t.request("GET", new URL(ref, "http://localhost/docs").pathname);
      expect({ ref, status: res.status }).toEqual({ ref, status: 200 });
      expect(res.text.length).toBeGreaterThan(10_000);
      expect(res.headers.get("content-type")).toMatch(ref.endsWith(".css") ? /text\/css/ : /javascript/);
    }
    // The document URL the page passes to Swagger UI resolves to the OpenAPI document.
    const specUrl = /"url"\s*:\s*"([^"]+)"/.exec(page.text)?.[1];
    expect(specUrl).toBeDefined();
    expect(new URL(specUrl!, "http://localhost/docs").pathname).toBe("/docs/json");
    // The page also answers at /docs/, where a relative document URL would point at /docs/docs/json.
    const slash = await t.request("GET", "/docs/");
    expect(slash.status).toBe(200);
    const slashSpec = /"url"\s*:\s*"([^"]+)"/.exec(slash.text)?.[1];
    expect(new URL(slashSpec!, "http://localhost/docs/").pathname).toBe("/docs/json");
  });

  test("/favicon.ico, which browsers ask for on every page, is the box's SVG icon, not a 404; it is not an API route", async () => {
    const res = await t.request("GET", "/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.text).toStartWith("<svg ");
    const doc = (await t.request("GET", "/docs/json")).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain("/favicon.ico");
  });

  test("/docs/json is the OpenAPI document with health, problem schema and security schemes", async () => {
    const res = await t.request("GET", "/docs/json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe("Cuadra");
    expect(doc.paths["/healthz"].get.responses["200"]).toBeDefined();
    expect(doc.paths["/healthz"].get.responses["503"]).toBeDefined();
    expect(doc.components.schemas.Problem).toBeDefined();
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(["ConnectorKey", "DeviceSignature"]));
  });
});
