// Webhooks through app.handle and the delivery loop of serve (contract §15), on the injected clock:
// endpoints and their isolation, the outbox written with each change, and delivery to a real
// receiver on loopback, verified with the published `standardwebhooks` package.
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { jsonLogger } from "../src/log";
import { createSecretBox, loadMasterKey } from "../src/store/secret-box";
import { startDelivery, type WebhookDelivery } from "../src/webhooks/delivery";
import { WEBHOOK_EVENT_TYPES } from "../src/webhooks/outbox";
import { makeTestApp, type TestApp } from "./support/harness";
import { bearer, order, pay, sync } from "./support/connector";
import { activatePhone, signedRequest } from "./support/device";
import { startReceiver, verifyWith as verifyAt, type Received, type Receiver } from "./support/receiver";

/** These tests run on the injected clock: the library checks the message at its own time. */
const verifyWith = (secret: string, r: Received) => verifyAt(secret, r, true);

let t: TestApp;
let shop: ReturnType<TestApp["tenant"]>;
let rx: Receiver;
let delivery: WebhookDelivery | null = null;
const logs: string[] = [];

beforeEach(async () => {
  t = await makeTestApp();
  shop = t.tenant();
  rx = startReceiver();
});
afterEach(async () => {
  await delivery?.stop();
  delivery = null;
  rx.stop();
  await t.close();
});
afterAll(() => {
  // Secrets never reach the log.
  expect(logs.join("\n")).not.toContain("whsec_");
});

const live = () => bearer(shop.keys.live);
const test_ = () => bearer(shop.keys.test);
const scope = (env: "live" | "test" = "live") => ({ tenantId: shop.tenant_id, environment: env });

async function createEndpoint(headers = live(), body: Record<string, unknown> = {}) {
  const res = await t.request("POST", "/connector/v1/webhooks", { headers, body: { url: rx.url, ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; events: string[] };
}

/** The delivery loop as serve runs it, on the test's clock and connections. */
async function deliver(opts: Parameters<typeof startDelivery>[1] = {}) {
  delivery ??= startDelivery(
    { reader: t.reader, writer: t.writer, clock: t.clock, logger: jsonLogger((l) => logs.push(l)), secretBox: await createSecretBox(loadMasterKey(t.dataDir)) },
    { pollMs: 10, random: () => 0.5, ...opts },
  );
  delivery.kick();
  return delivery;
}

async function messages(endpointId: string, query = "", headers = live()) {
  const res = await t.request("GET", `/connector/v1/webhooks/${endpointId}/messages${query}`, { headers });
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

/** Waits until the endpoint's newest message has left `pending` after `attempts` attempts. */
async function settled(endpointId: string, attempts = 1) {
  for (let i = 0; i < 500; i++) {
    const [m] = await messages(endpointId);
    if (m && m.attempts >= attempts && (m.status !== "pending" || m.last_attempt_at !== null) && delivery!.inFlight() === 0) return m;
    await Bun.sleep(10);
  }
  throw new Error("message not attempted");
}

const bodies = () => rx.received.map((r) => JSON.parse(r.body));

describe("endpoints", () => {
  test("create shows a whsec_ secret once; list and get never show it", async () => {
    const res = await t.request("POST", "/connector/v1/webhooks", { headers: live(), body: { url: rx.url, description: "Tienda" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: rx.url, events: [...WEBHOOK_EVENT_TYPES], description: "Tienda", status: "enabled", disabled_reason: null });
    expect(res.body.id).toMatch(/^whe_[A-Za-z0-9]{20}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await t.request("GET", "/connector/v1/webhooks", { headers: live() });
    expect(list.body.data).toHaveLength(1);
    expect(list.text).not.toContain("whsec_");
    const one = await t.request("GET", `/connector/v1/webhooks/${res.body.id}`, { headers: live() });
    const { secret: _secret, ...withoutSecret } = res.body;
    expect(one.body).toEqual(withoutSecret);
    // Stored sealed, never in clear.
    const stored = t.store.sqlite.query<{ s: string }, []>("SELECT secret_enc AS s FROM webhook_endpoints").get()!.s;
    expect(stored).not.toContain(res.body.secret.slice(6));
  });

  test("another tenant's or environment's endpoint is 404 webhook_not_found on every route", async () => {
    const mine = await createEndpoint();
    const other = t.tenant("Otra bodega");
    for (const headers of [bearer(other.keys.live), test_()]) {
      expect((await t.request("GET", "/connector/v1/webhooks", { headers })).body.data).toEqual([]);
      for (const [method, path, body] of [
        ["GET", `/connector/v1/webhooks/${mine.id}`],
        ["PATCH", `/connector/v1/webhooks/${mine.id}`, { description: "x" }],
        ["DELETE", `/connector/v1/webhooks/${mine.id}`],
        ["POST", `/connector/v1/webhooks/${mine.id}/rotate-secret`],
        ["POST", `/connector/v1/webhooks/${mine.id}/test`],
        ["GET", `/connector/v1/webhooks/${mine.id}/messages`],
        ["POST", `/connector/v1/webhooks/${mine.id}/messages/msg_x/retry`],
      ] as const) {
        const res = await t.request(method, path, { headers, body });
        expect([res.status, res.body.code]).toEqual([404, "webhook_not_found"]);
      }
    }
    expect((await t.request("GET", `/connector/v1/webhooks/${mine.id}`, { headers: live() })).status).toBe(200);
  });

  test("bad url, unknown or empty events: 400 invalid_request naming the field; nothing stored", async () => {
    for (const [body, field] of [
      [{ url: "ftp://shop.example/x" }, "/url"],
      [{ url: "/relative" }, "/url"],
      [{ url: `http://shop.example/${"a".repeat(2040)}` }, "/url"],
      [{ url: rx.url, events: ["match.created", "order.paid"] }, "/events/1"],
      [{ url: rx.url, events: [] }, "/events"],
      [{}, "/url"],
    ] as const) {
      const res = await t.request("POST", "/connector/v1/webhooks", { headers: live(), body });
      expect([res.status, res.body.code]).toEqual([400, "invalid_request"]);
      expect(res.body.errors[0].field).toBe(field);
    }
    expect((await t.request("GET", "/connector/v1/webhooks", { headers: live() })).body.data).toEqual([]);
    // LAN addresses are fine.
    expect((await t.request("POST", "/connector/v1/webhooks", { headers: live(), body: { url: "http://192.168.1.20:8080/hook" } })).status).toBe(201);
  });

  test("at most 16 endpoints per tenant and environment: the 17th is 409 webhook_limit_reached", async () => {
    for (let i = 0; i < 16; i++) await createEndpoint();
    const res = await t.request("POST", "/connector/v1/webhooks", { headers: live(), body: { url: rx.url } });
    expect([res.status, res.body.code]).toEqual([409, "webhook_limit_reached"]);
    // The other environment has its own 16.
    expect((await t.request("POST", "/connector/v1/webhooks", { headers: test_(), body: { url: rx.url } })).status).toBe(201);
    // A deleted endpoint frees its place.
    const first = (await t.request("GET", "/connector/v1/webhooks", { headers: live() })).body.data[0];
    expect((await t.request("DELETE", `/connector/v1/webhooks/${first.id}`, { headers: live() })).body).toEqual({ id: first.id, deleted: true });
    expect((await t.request("POST", "/connector/v1/webhooks", { headers: live(), body: { url: rx.url } })).status).toBe(201);
  });

  test("PATCH changes url, events, description and status; enabling clears the reason", async () => {
    const e = await createEndpoint();
    t.clock.advance(1000);
    const off = await t.request("PATCH", `/connector/v1/webhooks/${e.id}`, {
      headers: live(),
      body: { status: "disabled", events: ["payment.received", "match.created"], description: null, url: "https://shop.example/new" },
    });
    expect(off.status).toBe(200);
    // events come back in the contract's order
    expect(off.body).toMatchObject({ status: "disabled", disabled_reason: "manual", events: ["match.created", "payment.received"], description: null, url: "https://shop.example/new" });
    expect(off.body.updated_at).toBe(off.body.created_at + 1000);
    const on = await t.request("PATCH", `/connector/v1/webhooks/${e.id}`, { headers: live(), body: { status: "enabled" } });
    expect(on.body).toMatchObject({ status: "enabled", disabled_reason: null });
    const bad = await t.request("PATCH", `/connector/v1/webhooks/${e.id}`, { headers: live(), body: { status: "paused" } });
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_request"]);
  });
});

describe("the outbox", () => {
  test("a test payment that pays an order queues payment.received and match.created for test endpoints only, with the views' data", async () => {
    const testEndpoint = await createEndpoint(test_());
    const liveEndpoint = await createEndpoint(live());
    await sync(t, scope("test"), [order("A-1", 2500)]);
    const paid = await t.request("POST", "/connector/v1/test/payments", { headers: test_(), body: { kind: "payment.received", source: "yape", amount: 2500, currency: "PEN" } });
    expect(paid.body.match.status).toBe("matched");
    expect(await messages(liveEndpoint.id)).toEqual([]);
    const queued = await messages(testEndpoint.id, "", test_());
    expect(queued.map((m) => m.type).sort()).toEqual(["match.created", "payment.received"]);
    expect(queued.every((m) => m.status === "pending" && m.attempts === 0 && m.next_attempt_at === t.clock.now())).toBe(true);

    await deliver();
    await rx.waitFor(2);
    const got = Object.fromEntries(rx.received.map((r) => [JSON.parse(r.body).type, verifyWith(testEndpoint.secret, r)]));
    const feed = (await t.request("GET", "/connector/v1/matches", { headers: test_() })).body.data;
    const events = (await t.request("GET", "/connector/v1/events", { headers: test_() })).body.data;
    expect(got["match.created"]).toEqual({ type: "match.created", timestamp: new Date(t.clock.now()).toISOString(), data: feed[0] });
    expect(got["payment.received"].data).toEqual(events[0]);
    expect(got["payment.received"].data.match_status).toBe("matched");
  });

  test("an endpoint receives only the types it lists; webhook.test reaches it whatever its list", async () => {
    const e = await createEndpoint(live(), { events: ["match.created"] });
    await pay(t, scope(), { amount: 1000, deviceId: "dev_a" });
    expect(await messages(e.id)).toEqual([]);
    const queued = await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    expect(queued.status).toBe(202);
    expect(queued.body.message_id).toMatch(/^msg_/);
    expect((await messages(e.id)).map((m) => [m.id, m.type])).toEqual([[queued.body.message_id, "webhook.test"]]);
  });

  test("a payment matched later (an order synced after it) gives match.created and payment.updated", async () => {
    const e = await createEndpoint(live(), { events: ["match.created", "payment.updated"] });
    const p = await pay(t, scope(), { amount: 4200, deviceId: "dev_a" });
    expect(p.match.status).toBe("unmatched");
    await sync(t, scope(), [order("B-7", 4200, { created_at: t.clock.now() - 60_000 })]);
    await deliver();
    await rx.waitFor(2);
    const byType = Object.fromEntries(bodies().map((b) => [b.type, b.data]));
    expect(byType["match.created"]).toMatchObject({ order_id: "B-7", event_id: p.eventId, method: "auto" });
    expect(byType["payment.updated"]).toMatchObject({ event_id: p.eventId, match_status: "matched", order_id: "B-7" });
  });

  test("a payment turned ambiguous by a sync gives payment.updated; a manual match gives match.created (manual) and payment.updated", async () => {
    const e = await createEndpoint(live(), { events: ["match.created", "payment.updated"] });
    const p = await pay(t, scope(), { amount: 900, deviceId: "dev_a" });
    await sync(t, scope(), [order("C-1", 900, { created_at: t.clock.now() - 60_000 }), order("C-2", 900, { created_at: t.clock.now() - 60_000 })]);
    let queued = await messages(e.id);
    expect(queued.map((m) => m.type)).toEqual(["payment.updated"]);
    const manual = await t.request("POST", "/connector/v1/matches", { headers: live(), body: { order_id: "C-2", event_id: p.eventId } });
    expect(manual.status).toBe(201);
    queued = await messages(e.id);
    expect(queued.map((m) => m.type).sort()).toEqual(["match.created", "payment.updated", "payment.updated"]);
    await deliver();
    await rx.waitFor(3);
    const datas = bodies().map((b) => [b.type, b.data.match_status ?? b.data.method]);
    expect(datas.sort()).toEqual([["match.created", "manual"], ["payment.updated", "ambiguous"], ["payment.updated", "matched"]]);
  });

  test("a refused change queues nothing: a manual match of a matched order (409)", async () => {
    const e = await createEndpoint();
    await sync(t, scope(), [order("D-1", 500)]);
    const first = await pay(t, scope(), { amount: 500, deviceId: "dev_a" });
    expect(first.match.status).toBe("matched");
    const before = (await messages(e.id)).length;
    const second = await pay(t, scope(), { amount: 700, deviceId: "dev_b" });
    const refused = await t.request("POST", "/connector/v1/matches", { headers: live(), body: { order_id: "D-1", event_id: second.eventId } });
    expect(refused.status).toBe(409);
    expect((await messages(e.id)).length).toBe(before + 1); // only the second payment.received
  });

  test("twenty payments at once on one order make one match and exactly one match.created", async () => {
    const e = await createEndpoint(live(), { events: ["match.created"] });
    await sync(t, scope(), [order("R-1", 3300, { customer_name: null })]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pay(t, scope(), { amount: 3300, deviceId: `dev_${i}`, payerName: `Cliente ${i}` })));
    expect(results.filter((r) => r.match.status === "matched")).toHaveLength(1);
    const queued = await messages(e.id);
    expect(queued.map((m) => m.type)).toEqual(["match.created"]);
  });

  test("a disabled endpoint gets no new messages; what was queued waits and goes out once it is enabled", async () => {
    const e = await createEndpoint();
    await pay(t, scope(), { amount: 100, deviceId: "dev_a" });
    await t.request("PATCH", `/connector/v1/webhooks/${e.id}`, { headers: live(), body: { status: "disabled" } });
    await pay(t, scope(), { amount: 200, deviceId: "dev_a" });
    expect((await messages(e.id)).length).toBe(1);
    await deliver();
    await Bun.sleep(100);
    expect(rx.received).toHaveLength(0);
    await t.request("PATCH", `/connector/v1/webhooks/${e.id}`, { headers: live(), body: { status: "enabled" } });
    await rx.waitFor(1);
    expect(JSON.parse(rx.received[0]!.body).data.amount).toBe(100);
  });

  test("phones: device.online at the first signed heartbeat, device.offline once it stops reading as online", async () => {
    const e = await createEndpoint(live(), { events: ["device.online", "device.offline"] });
    const phone = await activatePhone(t, { tenantId: shop.tenant_id });
    expect((await signedRequest(t, phone, "POST", "/device/v1/heartbeat", { body: { battery_level: 80 } })).status).toBe(200);
    expect((await messages(e.id)).map((m) => m.type)).toEqual(["device.online"]);
    // A second heartbeat while online says nothing new.
    t.clock.advance(60_000);
    await signedRequest(t, phone, "POST", "/device/v1/heartbeat", { body: { battery_level: 79 } });
    expect((await messages(e.id)).length).toBe(1);
    // 180 s after the last heartbeat it still reads online; 1 ms later it does not.
    t.clock.advance(180_000);
    expect(await t.writer.run("reportOfflineDevices", { now: t.clock.now() })).toBe(0);
    t.clock.advance(1);
    expect(await t.writer.run("reportOfflineDevices", { now: t.clock.now() })).toBe(1);
    expect(await t.writer.run("reportOfflineDevices", { now: t.clock.now() })).toBe(0);
    await signedRequest(t, phone, "POST", "/device/v1/heartbeat", { body: {} });
    expect((await messages(e.id)).map((m) => m.type)).toEqual(["device.online", "device.offline", "device.online"]);
    await deliver();
    await rx.waitFor(3);
    // Delivery order is not promised: pick them by content.
    const offline = bodies().find((b) => b.type === "device.offline")!;
    const online = bodies().find((b) => b.type === "device.online" && b.data.health.battery_level === 80)!;
    const devices = (await t.request("GET", "/connector/v1/devices", { headers: live() })).body.data;
    // The phone as GET /devices shows it, at the moment of each change.
    expect(Object.keys(offline.data).sort()).toEqual(Object.keys(devices[0]).sort());
    expect(offline.data).toMatchObject({ device_id: phone.deviceId, online: false, last_heartbeat_at: t.clock.now() - 180_001, health: { battery_level: 79 } });
    expect(online.data).toMatchObject({ device_id: phone.deviceId, online: true, health: { battery_level: 80 } });
  });
});

describe("delivery", () => {
  test("headers and body follow Standard Webhooks; the library verifies the signature", async () => {
    const e = await createEndpoint();
    const { message_id } = (await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() })).body;
    await deliver();
    const [r] = await rx.waitFor(1);
    expect(r!.id).toBe(message_id);
    expect(r!.timestamp).toBe(String(Math.floor(t.clock.now() / 1000)));
    expect(r!.contentType).toBe("application/json");
    expect(r!.userAgent).toMatch(/^Cuadra\/\d+\.\d+\.\d+/);
    expect(r!.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyWith(e.secret, r!)).toEqual({ type: "webhook.test", timestamp: new Date(t.clock.now()).toISOString(), data: { endpoint_id: e.id } });
    const m = await settled(e.id);
    expect(m).toMatchObject({ status: "succeeded", attempts: 1, last_response_status: 204, last_error: null, next_attempt_at: null });
  });

  test("a failing receiver gets the same message again after 5 s (±10 %), and then it succeeds", async () => {
    const e = await createEndpoint();
    rx.answer = () => new Response("down", { status: 500 });
    await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    await deliver({ random: () => 0 }); // the shortest jitter: 4.5 s
    await rx.waitFor(1);
    const failed = await settled(e.id);
    expect(failed).toMatchObject({ status: "pending", attempts: 1, last_response_status: 500, last_error: "HTTP 500", next_attempt_at: t.clock.now() + 4500 });
    rx.answer = () => new Response(null, { status: 200 });
    t.clock.advance(4499);
    delivery!.kick();
    await Bun.sleep(50);
    expect(rx.received).toHaveLength(1);
    t.clock.advance(1);
    delivery!.kick();
    const [first, second] = await rx.waitFor(2);
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    expect(Number(second!.timestamp)).toBe(Math.floor(t.clock.now() / 1000));
    expect(await settled(e.id, 2)).toMatchObject({ status: "succeeded", attempts: 2, last_response_status: 200 });
  });

  test("410 disables the endpoint at once (gone); its messages wait", async () => {
    const e = await createEndpoint();
    rx.answer = () => new Response(null, { status: 410 });
    await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    await deliver();
    await rx.waitFor(1);
    await settled(e.id);
    const endpoint = (await t.request("GET", `/connector/v1/webhooks/${e.id}`, { headers: live() })).body;
    expect(endpoint).toMatchObject({ status: "disabled", disabled_reason: "gone" });
    expect(logs.some((l) => l.includes("webhook endpoint disabled") && l.includes('"gone"'))).toBe(true);
    t.clock.advance(3_600_000);
    delivery!.kick();
    await Bun.sleep(50);
    expect(rx.received).toHaveLength(1);
  });

  test("no success for five days while messages fail disables the endpoint (failing)", async () => {
    const e = await createEndpoint();
    rx.answer = () => new Response(null, { status: 502 });
    await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    const { message_id } = (await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() })).body;
    await deliver();
    await rx.waitFor(2);
    await settled(e.id);
    t.clock.advance(5 * 24 * 3_600_000 - 1);
    await t.request("POST", `/connector/v1/webhooks/${e.id}/messages/${message_id}/retry`, { headers: live() });
    delivery!.kick();
    await rx.waitFor(3);
    await settled(e.id, 2);
    expect((await t.request("GET", `/connector/v1/webhooks/${e.id}`, { headers: live() })).body.status).toBe("enabled");
    t.clock.advance(1);
    await t.request("POST", `/connector/v1/webhooks/${e.id}/messages/${message_id}/retry`, { headers: live() });
    delivery!.kick();
    await rx.waitFor(4);
    await settled(e.id, 3);
    expect((await t.request("GET", `/connector/v1/webhooks/${e.id}`, { headers: live() })).body).toMatchObject({ status: "disabled", disabled_reason: "failing" });
  });

  test("429 with Retry-After waits at least that long; redirects are not followed", async () => {
    const e = await createEndpoint();
    let target = 0;
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (target++, new Response(null, { status: 204 })) });
    try {
      rx.answer = () => new Response(null, { status: 429, headers: { "retry-after": "600" } });
      await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
      await deliver();
      await rx.waitFor(1);
      expect(await settled(e.id)).toMatchObject({ status: "pending", last_response_status: 429, next_attempt_at: t.clock.now() + 600_000 });
      rx.answer = () => new Response(null, { status: 307, headers: { location: `http://127.0.0.1:${other.port}/` } });
      t.clock.advance(600_000);
      delivery!.kick();
      await rx.waitFor(2);
      expect(await settled(e.id, 2)).toMatchObject({ status: "pending", last_response_status: 307, last_error: "HTTP 307" });
      expect(target).toBe(0);
    } finally {
      other.stop(true);
    }
  });

  test("a receiver that does not answer in time is a failed attempt (timeout), and ingest does not wait for it", async () => {
    const e = await createEndpoint();
    rx.answer = () => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response(null, { status: 204 })), 2000));
    await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    await deliver({ timeoutMs: 200 });
    await rx.waitFor(1);
    const started = performance.now();
    const p = await t.request("POST", "/connector/v1/test/payments", { headers: test_(), body: { kind: "payment.received", source: "yape", amount: 100, currency: "PEN" } });
    expect([p.status, p.text]).toEqual([201, p.text]);
    expect(performance.now() - started).toBeLessThan(200); // answered while the receiver still holds its request
    expect(await settled(e.id)).toMatchObject({ status: "pending", last_response_status: null, last_error: "timeout after 0 s" });
  });

  test("after a rotation messages carry two signatures, each valid; after 24 h only the new one", async () => {
    const e = await createEndpoint();
    const rotated = await t.request("POST", `/connector/v1/webhooks/${e.id}/rotate-secret`, { headers: live() });
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(e.id);
    expect(rotated.body.secret).not.toBe(e.secret);
    await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    await deliver();
    const [r] = await rx.waitFor(1);
    expect(r!.signature.split(" ")).toHaveLength(2);
    expect(verifyWith(e.secret, r!).type).toBe("webhook.test");
    expect(verifyWith(rotated.body.secret, r!).type).toBe("webhook.test");
    t.clock.advance(24 * 3_600_000 + 1);
    await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() });
    delivery!.kick();
    const [, r2] = await rx.waitFor(2);
    expect(r2!.signature.split(" ")).toHaveLength(1);
    expect(verifyWith(rotated.body.secret, r2!).type).toBe("webhook.test");
    expect(() => verifyWith(e.secret, r2!)).toThrow();
  });

  test("retry makes a failed message pending and sends it now; an unknown message is 404", async () => {
    const e = await createEndpoint();
    rx.answer = () => new Response(null, { status: 500 });
    const { message_id } = (await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() })).body;
    t.store.sqlite.run("UPDATE webhook_messages SET attempts = 7"); // as after seven failures
    await deliver();
    await rx.waitFor(1);
    expect(await settled(e.id, 8)).toMatchObject({ status: "failed", attempts: 8, next_attempt_at: null });
    expect((await messages(e.id, "?status=failed")).map((m) => m.id)).toEqual([message_id]);
    expect(await messages(e.id, "?status=pending")).toEqual([]);
    rx.answer = () => new Response(null, { status: 204 });
    const retried = await t.request("POST", `/connector/v1/webhooks/${e.id}/messages/${message_id}/retry`, { headers: live() });
    expect([retried.status, retried.body]).toEqual([202, { message_id, status: "pending" }]);
    await rx.waitFor(2);
    expect(await settled(e.id, 9)).toMatchObject({ status: "succeeded" });
    const missing = await t.request("POST", `/connector/v1/webhooks/${e.id}/messages/msg_nope/retry`, { headers: live() });
    expect([missing.status, missing.body.code]).toEqual([404, "webhook_message_not_found"]);
  });
});

describe("messages list and retention", () => {
  test("newest first, paged by cursor; a cursor of another scope or a bad status is 400", async () => {
    const e = await createEndpoint();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.request("POST", `/connector/v1/webhooks/${e.id}/test`, { headers: live() })).body.message_id);
    const page1 = (await t.request("GET", `/connector/v1/webhooks/${e.id}/messages?limit=2`, { headers: live() })).body;
    expect(page1.data.map((m: any) => m.id)).toEqual([ids[4], ids[3]]);
    expect(page1.has_more).toBe(true);
    const page2 = (await t.request("GET", `/connector/v1/webhooks/${e.id}/messages?limit=2&after=${page1.next_cursor}`, { headers: live() })).body;
    expect(page2.data.map((m: any) => m.id)).toEqual([ids[2], ids[1]]);
    const page3 = (await t.request("GET", `/connector/v1/webhooks/${e.id}/messages?limit=2&after=${page2.next_cursor}`, { headers: live() })).body;
    expect([page3.data.map((m: any) => m.id), page3.has_more]).toEqual([[ids[0]], false]);
    const testEndpoint = await createEndpoint(test_());
    const foreign = await t.request("GET", `/connector/v1/webhooks/${testEndpoint.id}/messages?after=${page1.next_cursor}`, { headers: test_() });
    expect([foreign.status, foreign.body.code]).toEqual([400, "invalid_cursor"]);
    const badStatus = await t.request("GET", `/connector/v1/webhooks/${e.id}/messages?status=sent`, { headers: live() });
    expect([badStatus.status, badStatus.body.code]).toEqual([400, "invalid_request"]);
  });

  test("messages older than 30 days go; a deleted endpoint's messages go, then the endpoint", async () => {
    const keep = await createEndpoint();
    const drop = await createEndpoint();
    await t.request("POST", `/connector/v1/webhooks/${keep.id}/test`, { headers: live() });
    await t.request("POST", `/connector/v1/webhooks/${drop.id}/test`, { headers: live() });
    await t.request("DELETE", `/connector/v1/webhooks/${drop.id}`, { headers: live() });
    expect((await t.request("GET", `/connector/v1/webhooks/${drop.id}`, { headers: live() })).status).toBe(404);
    const count = (sql: string) => t.store.sqlite.query<{ n: number }, []>(sql).get()!.n;
    expect(await t.writer.run("pruneWebhooks", { now: t.clock.now() })).toBe(1);
    expect(count("SELECT count(*) AS n FROM webhook_endpoints")).toBe(1);
    expect(count("SELECT count(*) AS n FROM webhook_messages")).toBe(1);
    expect(await t.writer.run("pruneWebhooks", { now: t.clock.now() + 30 * 86_400_000 })).toBe(0);
    expect(await t.writer.run("pruneWebhooks", { now: t.clock.now() + 30 * 86_400_000 + 1 })).toBe(1);
    expect(count("SELECT count(*) AS n FROM webhook_messages")).toBe(0);
  });
});
