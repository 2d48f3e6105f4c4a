// End-to-end over the built binary (contract §16): a phone sends the wallet notifications it sees
// and lets the box read them; the shop collects the match it made, sees what the box could not
// read, and a webhook receiver is told of it; `cuadra notifications reparse` and a restart leave
// everything in place.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { DeviceClient, type NotificationEventBody } from "../src/client/device-client";
import { cli, startServer, tempDirsRemovedAfterAll, type RunningServer } from "./support/e2e";
import { startReceiver, verifyWith, type Receiver } from "./support/receiver";

const temp = tempDirsRemovedAfterAll();
setDefaultTimeout(60_000);

let server: RunningServer;
let tenantId: string;
let liveKey: string;
let phone: DeviceClient;
let deviceId: string;
let rx: Receiver;
let hookSecret: string;

const YAPE = "com.bcp.innovacxion.yapeapp";

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}/connector/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${liveKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const notification = (text: string, pkg = YAPE, title?: string): NotificationEventBody => ({
  event_id: crypto.randomUUID(),
  kind: "notification.posted",
  occurred_at: Date.now() - 2_000,
  raw: { package: pkg, ...(title ? { title } : {}), text },
});

beforeAll(async () => {
  server = await startServer({ dataDir: temp.dataDir() });
  const t = await cli(server.dataDir, ["tenant", "create", "--name", "Bodega Rosa", "--json"]);
  tenantId = t.json.tenant_id;
  liveKey = t.json.keys.live;
  const code = await cli(server.dataDir, ["code", "create", "--tenant", tenantId, "--env", "live", "--json"]);
  const activated = await DeviceClient.activate(server.url, { activation_code: code.json.code, device_label: "Caja 1", app_version: "1.4.0", platform: "android", os_version: "15" });
  phone = activated.client;
  deviceId = activated.activation.device_id;
  rx = startReceiver();
  const hook = await cli(server.dataDir, ["webhook", "add", "--tenant", tenantId, "--env", "live", "--url", rx.url, "--events", "notification.unrecognized", "--json"]);
  expect(hook.code).toBe(0);
  hookSecret = hook.json.secret;
}, 180_000);

afterAll(async () => {
  rx?.stop();
  await server?.stop();
});

test("a Yape notification pays the shop's order; a promotion is no payment and its text is not kept", async () => {
  expect((await call("POST", "/orders", { orders: [{ id: "W-501", amount: 5670, currency: "PEN" }] })).status).toBe(200);
  const yape = notification("Yanina Man* te envió un pago por S/\u00a056.7. El cód. de seguridad es: 666", YAPE, "Confirmación de Pago");
  const sent = await phone.sendNotification(yape);
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({
    notification: { status: "payment", format: "yape.payment_received" },
    match: { status: "matched", order_id: "W-501" },
    payment: { source: "yape", amount: 5670, payer_name: "Yanina Man*", security_code: "666" },
  });
  const again = await phone.sendNotification(yape);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(again.body).toEqual(sent.body);

  const feed = await call("GET", "/matches");
  expect(feed.body.data.map((m: any) => [m.order_id, m.event_id, m.source, m.amount])).toEqual([["W-501", yape.event_id, "yape", 5670]]);

  const promo = notification("¿Por vender dólares? 💰$ Hazlo al toque desde Yape. ¡Cambia ahora! ⭐💰");
  expect((await phone.sendNotification(promo)).body).toMatchObject({ notification: { status: "not_a_payment", format: "yape.promotion" }, match: null, payment: null });
  const listed = await call("GET", "/notifications?status=not_a_payment");
  expect(listed.body.data).toEqual([expect.objectContaining({ event_id: promo.event_id, title: null, text: null, package: YAPE })]);
});

test("a hidden or unknown notification is kept, told to the webhook receiver, counted on the phone, and survives reparse and a restart", async () => {
  const hidden = notification("Sensitive notification content hidden", YAPE, "Yape");
  const bcp = notification("Recibiste un yapeo de S/ 9.00 de Sebastian Jeremy Yparraguirre Ocaña.", "com.bcp.bank.bcp", "BCP");
  expect((await phone.sendNotification(hidden)).body.notification).toEqual({ status: "unrecognized", format: "android.redacted" });
  expect((await phone.sendNotification(bcp)).body.notification).toEqual({ status: "unrecognized", format: null });

  const [first, second] = await rx.waitFor(2, 15_000);
  const bodies = [first!, second!].map((r) => verifyWith(hookSecret, r)); // checked by the published library
  expect(bodies.map((b) => [b.type, b.data.event_id]).sort()).toEqual(
    [
      ["notification.unrecognized", hidden.event_id],
      ["notification.unrecognized", bcp.event_id],
    ].sort(),
  );
  expect(bodies.find((b) => b.data.event_id === bcp.event_id).data).toMatchObject({ device_id: deviceId, package: "com.bcp.bank.bcp", title: "BCP", text: bcp.raw.text });

  const devices = await call("GET", "/devices");
  expect(devices.body.data[0].notifications).toMatchObject({ payment: 1, not_a_payment: 1, unrecognized: 2 });
  expect(devices.body.data[0].notifications.last_unrecognized_at).toBeGreaterThan(Date.now() - 60_000);

  // This version knows no BCP format: read again, nothing becomes a payment, nothing is lost.
  const reparse = await cli(server.dataDir, ["notifications", "reparse", "--json"]);
  expect(reparse.code).toBe(0);
  expect(reparse.json).toEqual({ read: 2, payments: 0, not_a_payment: 0, too_old: 0, failed: 0 });
  const human = await cli(server.dataDir, ["notifications", "reparse"]);
  expect(human.stdout).toContain("read again: 2");
  expect(human.stdout).toContain("became payments: 0");

  expect(await server.stop()).toBe(0);
  server = await startServer({ dataDir: server.dataDir });
  const unread = await call("GET", "/notifications?status=unrecognized");
  expect(unread.body.data.map((d: any) => [d.event_id, d.format, d.text])).toEqual([
    [hidden.event_id, "android.redacted", "Sensitive notification content hidden"],
    [bcp.event_id, null, bcp.raw.text],
  ]);
});
