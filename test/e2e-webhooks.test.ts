// End-to-end over the built binary (contract §15): a real receiver on a free loopback port gets
// the box's messages and verifies them with the published `standardwebhooks` package; retries,
// 410, a hanging receiver, SIGKILL with messages pending, secret rotation, and the wall between
// live and test.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { DeviceClient } from "../src/client/device-client";
import { cli, phoneEvent, startServer, tempDirsRemovedAfterAll, type RunningServer } from "./support/e2e";
import { startReceiver, verifyWith, type Receiver } from "./support/receiver";

const temp = tempDirsRemovedAfterAll();
setDefaultTimeout(60_000);

let server: RunningServer;
let tenantId: string;
let liveKey: string;
let testKey: string;
let phone: DeviceClient;
let rx: Receiver;

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}/connector/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The receiver holds every request until the returned function is called (then answers 204). */
function holdAnswers(receiver: Receiver): () => void {
  let release = () => {};
  const hung = new Promise<void>((r) => (release = r));
  receiver.answer = async () => {
    await hung;
    return new Response(null, { status: 204 });
  };
  return release;
}

beforeAll(async () => {
  server = await startServer({ dataDir: temp.dataDir() });
  const t = await cli(server.dataDir, ["tenant", "create", "--name", "Bodega Rosa", "--json"]);
  tenantId = t.json.tenant_id;
  liveKey = t.json.keys.live;
  testKey = t.json.keys.test;
  const code = await cli(server.dataDir, ["code", "create", "--tenant", tenantId, "--env", "live", "--json"]);
  phone = (await DeviceClient.activate(server.url, { activation_code: code.json.code, device_label: "Caja 1", app_version: "1.4.0", platform: "android", os_version: "14" })).client;
}, 180_000);

afterEach(() => rx?.stop());
afterAll(async () => {
  await server?.stop();
});

test("a phone's payment reaches the live endpoint added by the command line; the library verifies it; the test endpoint sees nothing", async () => {
  rx = startReceiver();
  const testRx = startReceiver("/test-hooks");
  try {
    const added = await cli(server.dataDir, ["webhook", "add", "--tenant", tenantId, "--env", "live", "--url", rx.url, "--json"]);
    expect(added.code).toBe(0);
    const testEndpoint = await call(testKey, "POST", "/webhooks", { url: testRx.url });
    expect(testEndpoint.status).toBe(201);

    await call(liveKey, "POST", "/orders", { orders: [{ id: "W-1", amount: 4700, currency: "PEN" }] });
    const ev = phoneEvent({ amount: 4700 });
    expect((await phone.sendEvent(ev)).status).toBe(201);
    const got = await rx.waitFor(2);
    const byType = Object.fromEntries(got.map((r) => [JSON.parse(r.body).type, verifyWith(added.json.secret, r)]));
    expect(byType["match.created"].data).toMatchObject({ order_id: "W-1", event_id: ev.event_id, amount: 4700, method: "auto" });
    expect(byType["payment.received"].data).toMatchObject({ event_id: ev.event_id, match_status: "matched", order_id: "W-1" });
    expect(got.every((r) => r.userAgent?.startsWith("Cuadra/"))).toBe(true);

    // A test payment reaches the test endpoint only.
    const tp = await call(testKey, "POST", "/test/payments", { kind: "payment.received", source: "plin", amount: 100, currency: "PEN" });
    expect(tp.status).toBe(201);
    const [t1] = await testRx.waitFor(1);
    expect(verifyWith(testEndpoint.body.secret, t1!).data.event_id).toBe(tp.body.event_id);
    await Bun.sleep(300);
    expect(rx.received).toHaveLength(2);
    expect(testRx.received).toHaveLength(1);

    expect((await cli(server.dataDir, ["webhook", "remove", added.json.id, "--json"])).json).toEqual({ id: added.json.id, deleted: true });
    await call(testKey, "DELETE", `/webhooks/${testEndpoint.body.id}`);
  } finally {
    testRx.stop();
  }
});

test("a receiver that fails first gets the message again; a 410 disables the endpoint", async () => {
  rx = startReceiver();
  const e = (await call(liveKey, "POST", "/webhooks", { url: rx.url, events: ["match.created"] })).body;
  rx.answer = () => new Response("busy", { status: 503 });
  const { message_id } = (await call(liveKey, "POST", `/webhooks/${e.id}/test`)).body;
  await rx.waitFor(1);
  rx.answer = () => new Response(null, { status: 204 });
  const [first, second] = await rx.waitFor(2, 15_000); // the schedule's 5 s (±10 %)
  expect([first!.id, second!.id]).toEqual([message_id, message_id]);
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(4_400);
  verifyWith(e.secret, second!);
  const m = await until("succeeded", async () => {
    const list = (await call(liveKey, "GET", `/webhooks/${e.id}/messages`)).body.data;
    return list.find((x: any) => x.id === message_id && x.status === "succeeded");
  });
  expect(m).toMatchObject({ attempts: 2, last_response_status: 204 });

  rx.answer = () => new Response(null, { status: 410 });
  await call(liveKey, "POST", `/webhooks/${e.id}/test`);
  await rx.waitFor(3);
  const disabled = await until("disabled", async () => {
    const endpoint = (await call(liveKey, "GET", `/webhooks/${e.id}`)).body;
    return endpoint.status === "disabled" && endpoint;
  });
  expect(disabled.disabled_reason).toBe("gone");
  await call(liveKey, "DELETE", `/webhooks/${e.id}`);
});

test("a receiver that hangs does not hold up the phones' events", async () => {
  rx = startReceiver();
  const release = holdAnswers(rx);
  const e = (await call(liveKey, "POST", "/webhooks", { url: rx.url, events: ["payment.received"] })).body;
  try {
    const first = phoneEvent({ amount: 101 });
    expect((await phone.sendEvent(first)).status).toBe(201);
    await rx.waitFor(1); // the box is now waiting on the receiver
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => phone.sendEvent(phoneEvent({ amount: 200 + i }))));
    // Every event was stored and answered while the receiver still held its requests.
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(rx.received.length).toBeLessThanOrEqual(4); // at most its four delivery slots are taken
  } finally {
    release();
  }
  await rx.waitFor(21, 20_000);
  await call(liveKey, "DELETE", `/webhooks/${e.id}`);
});

test("SIGKILL with a message in flight: after the restart it is delivered", async () => {
  rx = startReceiver();
  const release = holdAnswers(rx);
  const e = (await call(liveKey, "POST", "/webhooks", { url: rx.url, events: ["webhook.test"] })).body;
  const { message_id } = (await call(liveKey, "POST", `/webhooks/${e.id}/test`)).body;
  await rx.waitFor(1);
  expect(await server.stop("SIGKILL")).not.toBe(0);
  release();
  rx.answer = () => new Response(null, { status: 204 });
  server = await startServer({ dataDir: server.dataDir });
  const [, again] = await rx.waitFor(2);
  expect(again!.id).toBe(message_id);
  verifyWith(e.secret, again!);
  await until("succeeded", async () => (await call(liveKey, "GET", `/webhooks/${e.id}/messages?status=succeeded`)).body.data.length === 1);
  await call(liveKey, "DELETE", `/webhooks/${e.id}`);
});

test("after a rotation each message carries two signatures that the library accepts, one per secret", async () => {
  rx = startReceiver();
  const e = (await call(liveKey, "POST", "/webhooks", { url: rx.url })).body;
  const rotated = (await call(liveKey, "POST", `/webhooks/${e.id}/rotate-secret`)).body;
  await call(liveKey, "POST", `/webhooks/${e.id}/test`);
  const [r] = await rx.waitFor(1);
  expect(r!.signature.split(" ")).toHaveLength(2);
  expect(verifyWith(e.secret, r!).type).toBe("webhook.test");
  expect(verifyWith(rotated.secret, r!).type).toBe("webhook.test");
  await call(liveKey, "DELETE", `/webhooks/${e.id}`);
});
