// contract §8 and §2.7 on the connector surface: Bearer or Basic, 401s with WWW-Authenticate,
// the per-key bucket and the per-address bucket for failures.
import { afterAll, describe, expect, test } from "bun:test";
import { createKey, revokeKey } from "../src/tenants/service";
import { makeTestApp } from "./support/harness";
import { bearer } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());
const ten = t.tenant();

const ROUTES: [string, string, unknown?][] = [
  ["POST", "/connector/v1/orders", { orders: [] }],
  ["GET", "/connector/v1/orders/A-1"],
  ["GET", "/connector/v1/matches"],
  ["POST", "/connector/v1/matches/ack", { through: "bTE6MA" }],
  ["POST", "/connector/v1/matches", { order_id: "A-1", event_id: "e-1" }],
  ["GET", "/connector/v1/events"],
  ["GET", "/connector/v1/devices"],
  ["POST", "/connector/v1/test/payments", {}],
];

let ip = 0;
const freshIp = () => `10.0.0.${++ip}`;

describe("every connector route refuses a missing or wrong key", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["no Authorization", {}, "api_key_missing"],
    ["empty Bearer", { authorization: "Bearer " }, "api_key_missing"],
    ["another scheme", { authorization: "Token sk_test_x" }, "api_key_missing"],
    ["unknown key", bearer("sk_test_" + "A".repeat(40)), "api_key_invalid"],
    ["not a key at all", bearer("hello"), "api_key_invalid"],
    ["Basic with a password", { authorization: "Basic " + btoa(`${ten.keys.test}:secret`) }, "api_key_invalid"],
  ];
  for (const [method, path, body] of ROUTES) {
    test.each(cases)(`${method} ${path}: %s`, async (_n, headers, code) => {
      const res = await t.request(method, path, { headers, body, ip: freshIp() });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe(code);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    });
  }
});

test("a key in the query string is never accepted", async () => {
  const res = await t.request("GET", `/connector/v1/matches?api_key=${ten.keys.test}&key=${ten.keys.test}`, { ip: freshIp() });
  expect(res.status).toBe(401);
  expect(res.body.code).toBe("api_key_missing");
});

test("Bearer and Basic (key as user name, empty password) both work; the scheme is case-insensitive", async () => {
  for (const authorization of [`Bearer ${ten.keys.test}`, `bearer ${ten.keys.test}`, `Basic ${btoa(`${ten.keys.test}:`)}`, `Basic ${btoa(ten.keys.test)}`]) {
    const res = await t.request("GET", "/connector/v1/matches", { headers: { authorization }, ip: freshIp() });
    expect(res.status).toBe(200);
  }
});

test("a revoked key is invalid at once", async () => {
  const k = createKey(t.store.db, t.clock, ten.tenant_id, "test");
  expect((await t.request("GET", "/connector/v1/devices", { headers: bearer(k.key) })).status).toBe(200);
  revokeKey(t.store.db, t.clock, k.key_id);
  const res = await t.request("GET", "/connector/v1/devices", { headers: bearer(k.key), ip: freshIp() });
  expect(res.status).toBe(401);
  expect(res.body.code).toBe("api_key_invalid");
});

test("an unauthenticated request is refused before its body is read (401, not 400 or 415)", async () => {
  const bad = await t.request("POST", "/connector/v1/orders", { body: "{not json", headers: { "content-type": "application/json" }, ip: freshIp() });
  expect(bad.status).toBe(401);
  const noType = await t.request("POST", "/connector/v1/orders", { body: "{}", headers: { "content-type": "text/plain" }, ip: freshIp() });
  expect(noType.status).toBe(401);
});

test("the request log names the tenant and environment, never the key", async () => {
  await t.request("GET", "/connector/v1/matches", { headers: bearer(ten.keys.live), ip: freshIp() });
  const line = JSON.parse(t.logs.at(-1)!);
  expect(line).toMatchObject({ path: "/connector/v1/matches", status: 200, tenant_id: ten.tenant_id, environment: "live" });
  expect(t.logs.join("\n")).not.toContain(ten.keys.live);
  expect(t.logs.join("\n")).not.toContain(ten.keys.test);
});

describe("rate limits", () => {
  test("per key: 100 requests, then 429 with Retry-After and RateLimit headers; another key is unaffected; refills 50 per second", async () => {
    const a = t.tenant("Rate A");
    const b = t.tenant("Rate B");
    for (let i = 0; i < 100; i++) {
      const res = await t.request("GET", "/connector/v1/matches", { headers: bearer(a.keys.test) });
      expect(res.status).toBe(200);
      if (i === 0) {
        expect(res.headers.get("ratelimit-policy")).toBe('"connector";q=100;w=2');
        expect(res.headers.get("ratelimit")).toMatch(/^"connector";r=99;t=\d+$/);
      }
    }
    const limited = await t.request("GET", "/connector/v1/matches", { headers: bearer(a.keys.test) });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit")).toMatch(/^"connector";r=0;t=\d+$/);
    expect((await t.request("GET", "/connector/v1/matches", { headers: bearer(b.keys.test) })).status).toBe(200);
    // the other environment's key is another key, with its own bucket
    expect((await t.request("GET", "/connector/v1/matches", { headers: bearer(a.keys.live) })).status).toBe(200);
    t.clock.advance(1000);
    for (let i = 0; i < 50; i++) expect((await t.request("GET", "/connector/v1/matches", { headers: bearer(a.keys.test) })).status).toBe(200);
    expect((await t.request("GET", "/connector/v1/matches", { headers: bearer(a.keys.test) })).status).toBe(429);
    t.clock.advance(1000);
  });

  test("failures are limited per address (60, one per second) and never spend a key's allowance", async () => {
    const addr = "192.0.2.7";
    const c = t.tenant("Failures");
    for (let i = 0; i < 60; i++) {
      expect((await t.request("GET", "/connector/v1/matches", { headers: bearer("sk_test_" + "B".repeat(40)), ip: addr })).status).toBe(401);
    }
    const limited = await t.request("GET", "/connector/v1/matches", { ip: addr });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // a valid key from the same address still works, with its full allowance
    const ok = await t.request("GET", "/connector/v1/matches", { headers: bearer(c.keys.test), ip: addr });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit")).toMatch(/r=99;/);
    // another address is not affected
    expect((await t.request("GET", "/connector/v1/matches", { ip: "192.0.2.8" })).status).toBe(401);
    t.clock.advance(1000);
    expect((await t.request("GET", "/connector/v1/matches", { ip: addr })).status).toBe(401);
  });
});
