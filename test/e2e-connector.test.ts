// End-to-end over the built binary: a phone pays, the box matches it to the shop's order, the
// connector collects the match, the box is killed (SIGKILL) before the acknowledgement, the
// connector polls again after the restart and acknowledges; and twenty payments race for one order.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { DeviceClient } from "../src/client/device-client";
import { cli, phoneEvent, startServer, tempDirsRemovedAfterAll, type RunningServer } from "./support/e2e";

const temp = tempDirsRemovedAfterAll();

// Building the binary and restarting it take seconds, more under load (Bun's default is 5 s).
setDefaultTimeout(60_000);

let server: RunningServer;
let tenantId: string;
let liveKey: string;
let testKey: string;

const phone = { device_label: "Caja 1", app_version: "1.4.0", platform: "android" as const, os_version: "14" };

async function activate(env: "live" | "test" = "live") {
  const code = await cli(server.dataDir, ["code", "create", "--tenant", tenantId, "--env", env, "--json"]);
  expect(code.code).toBe(0);
  return DeviceClient.activate(server.url, { activation_code: code.json.code, ...phone });
}

const connector = (key: string) => ({
  get: async (path: string) => {
    const res = await fetch(`${server.url}/connector/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as any };
  },
  post: async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}/connector/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  },
});

const event = phoneEvent;

beforeAll(async () => {
  server = await startServer({ dataDir: temp.dataDir() });
  const t = await cli(server.dataDir, ["tenant", "create", "--name", "Bodega Rosa", "--json"]);
  expect(t.code).toBe(0);
  tenantId = t.json.tenant_id;
  liveKey = t.json.keys.live;
  testKey = t.json.keys.test;
  expect((await cli(server.dataDir, ["license", "set", "--tenant", tenantId, "--max-devices", "100", "--json"])).code).toBe(0);
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

test("phone → match → feed → SIGKILL → feed again → ack", async () => {
  const shop = connector(liveKey);
  const synced = await shop.post("/orders", {
    orders: [
      { id: "A-1042", amount: 2500, currency: "PEN", customer_name: "Yanina Manrique López" },
      { id: "A-1043", amount: 2500, currency: "PEN", customer_name: "Luis Quispe" },
    ],
  });
  expect(synced.status).toBe(200);

  const { client, activation } = await activate();
  const ev = event({ payer_name: "Yanina Man*", security_code: "482" });
  const sent = await client.sendEvent(ev);
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({ event_id: ev.event_id, match: { status: "matched", order_id: "A-1042" } });

  const feed = await shop.get("/matches");
  expect(feed.status).toBe(200);
  expect(feed.body.data).toHaveLength(1);
  expect(feed.body.data[0]).toMatchObject({ order_id: "A-1042", event_id: ev.event_id, device_id: activation.device_id, amount: 2500, method: "auto" });

  // the box dies before the connector acknowledges
  expect(await server.stop("SIGKILL")).not.toBe(0);
  server = await startServer({ dataDir: server.dataDir });

  const again = await connector(liveKey).get("/matches");
  expect(again.body).toEqual(feed.body); // at least once: the same match, the same cursor
  const ack = await connector(liveKey).post("/matches/ack", { through: again.body.next_cursor });
  expect(ack).toEqual({ status: 200, body: { acknowledged_through: again.body.next_cursor } });
  expect((await connector(liveKey).get("/matches")).body.data).toEqual([]);

  // the acknowledgement survives a restart too
  expect(await server.stop("SIGKILL")).not.toBe(0);
  server = await startServer({ dataDir: server.dataDir });
  expect((await connector(liveKey).get("/matches")).body.data).toEqual([]);
  const order = await connector(liveKey).get("/orders/A-1042");
  expect(order.body).toMatchObject({ status: "matched", match: { id: feed.body.data[0].id } });
  expect((await connector(liveKey).get("/orders/A-1043")).body.status).toBe("pending");

  // the phone shows up in the devices view, online after a heartbeat (the box came back on another port)
  const client2 = new DeviceClient({ ...client.credentials, apiBaseUrl: `${server.url}/device/v1` });
  await client2.syncClock();
  expect((await client2.heartbeat({ battery_level: 77, listener_connected: true })).status).toBe(200);
  const devices = await connector(liveKey).get("/devices");
  expect(devices.body.data).toEqual([expect.objectContaining({ device_id: activation.device_id, online: true, health: expect.objectContaining({ battery_level: 77 }) })]);
});

test("twenty payments racing for one order make exactly one match", async () => {
  const shop = connector(liveKey);
  await shop.post("/orders", { orders: [{ id: "RACE-1", amount: 7300, currency: "PEN" }] });
  const phones = await Promise.all([activate(), activate()]);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => phones[i % 2]!.client.sendEvent(event({ amount: 7300, payer_name: `Cliente ${i}`, reference: `OP-${i}` }))),
  );
  expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
  const statuses = results.map((r) => (r.body as { match: { status: string } }).match.status);
  expect(statuses.filter((s) => s === "matched")).toHaveLength(1);
  const feed = await shop.get("/matches");
  expect(feed.body.data.filter((m: any) => m.order_id === "RACE-1")).toHaveLength(1);
  const events = await shop.get("/events?status=matched&limit=500");
  expect(events.body.data.filter((e: any) => e.order_id === "RACE-1")).toHaveLength(1);
});

test("a shop developer with a test key and no phone", async () => {
  const dev = connector(testKey);
  expect((await dev.post("/orders", { orders: [{ id: "T-1", amount: 1500, currency: "PEN", unique_amount: true }, { id: "T-2", amount: 1500, currency: "PEN", unique_amount: true }] })).body.orders.map((o: any) => o.expected_amount)).toEqual([1500, 1501]);
  const paid = await dev.post("/test/payments", { kind: "payment.received", occurred_at: Date.now(), source: "plin", amount: 1501, currency: "PEN" });
  expect(paid.status).toBe(201);
  expect(paid.body.match).toEqual({ status: "matched", order_id: "T-2" });
  const feed = await dev.get("/matches");
  expect(feed.body.data.map((m: any) => m.order_id)).toEqual(["T-2"]);
  // the live world saw none of it
  expect((await connector(liveKey).get("/orders/T-2")).status).toBe(404);
  expect((await connector(liveKey).post("/test/payments", {})).body.code).toBe("test_mode_only");
});

test("lists for people (contract §19): orders newest first by status, paged, and a waiting payment with its candidates", async () => {
  const other = await cli(server.dataDir, ["tenant", "create", "--name", "Bodega Lista", "--json"]);
  expect(other.code).toBe(0);
  const shop = connector(other.json.keys.live);
  const now = Date.now();
  const synced = await shop.post("/orders", {
    orders: [
      { id: "L-1", amount: 3300, currency: "PEN", created_at: now - 60_000 },
      { id: "L-2", amount: 3300, currency: "PEN", created_at: now - 30_000 },
      { id: "L-3", amount: 4400, currency: "PEN", created_at: now - 10_000, status: "cancelled" },
    ],
  });
  expect(synced.status).toBe(200);
  const code = await cli(server.dataDir, ["code", "create", "--tenant", other.json.tenant_id, "--env", "live", "--json"]);
  const { client } = await DeviceClient.activate(server.url, { activation_code: code.json.code, ...phone });
  const ev = event({ amount: 3300 });
  expect((await client.sendEvent(ev)).body).toMatchObject({ match: { status: "ambiguous" } });

  expect((await shop.get("/orders")).body.data.map((o: any) => o.id)).toEqual(["L-3", "L-2", "L-1"]);
  const first = await shop.get("/orders?status=pending&status=expired&limit=1");
  expect(first.body).toMatchObject({ data: [{ id: "L-2", status: "pending" }], has_more: true });
  const second = await shop.get(`/orders?status=pending&status=expired&limit=1&after=${first.body.next_cursor}`);
  expect(second.body).toMatchObject({ data: [{ id: "L-1" }], has_more: false });

  const payment = await shop.get(`/events/${ev.event_id}`);
  expect(payment.status).toBe(200);
  expect(payment.body).toMatchObject({ event_id: ev.event_id, match_status: "ambiguous", amount: 3300 });
  expect(payment.body.candidates.map((o: any) => o.id)).toEqual(["L-2", "L-1"]); // the cancelled one never

  // the first shop sees none of it, and cannot use its cursors
  expect((await connector(liveKey).get(`/events/${ev.event_id}`)).body.code).toBe("event_not_found");
  expect((await connector(liveKey).get(`/orders?after=${first.body.next_cursor}`)).body.code).toBe("invalid_cursor");
});
