// Notifications read on the box (contract §16) through app.handle and the one writer: a notification
// pays an order exactly as a payment event does, replays and reused ids, what is kept of each kind,
// the webhook of an unrecognised one, reading again (at start and by `cuadra notifications reparse`)
// with formats the first reading did not know, the connector's list and the per-phone counts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { commands } from "../src/cli/commands";
import { runCli } from "../src/cli/framework";
import type { NotificationEventBody } from "../src/client/device-client";
import { createRecogniser, recognise, type Recognise } from "../src/notifications/recogniser";
import { reparseNotifications, reparseThroughWriter } from "../src/notifications/reparse";
import { WALLETS } from "../src/notifications/wallets";
import { wording, type Wallet } from "../src/notifications/wallets/format";
import { MAX_AGE_MS } from "../src/payments/model";
import { makeTestApp, type TestApp } from "./support/harness";
import { bearer, order, sync } from "./support/connector";
import { activatePhone, signedRequest, type Phone } from "./support/device";

const YAPE = "com.bcp.innovacxion.yapeapp";
const Y1 = "Yanina Man* te envió un pago por S/ 56.7. El cód. de seguridad es: 666";
const BCP_TEXT = "Recibiste un yapeo de S/ 9.00 de Sebastian Jeremy Yparraguirre Ocaña.";
const REDACTED = "Sensitive notification content hidden";
const PROMO = "¿Sin dinero? Solicita tu préstamo por S/2,000 preaprobados, págalo en 6 cuotas";

/** The box's wallets and a BCP format it does not know today: what a newer version would read. */
const BCP_NEXT: Wallet = {
  id: "bcp",
  packages: ["com.bcp.bank.bcp"],
  payments: [{ id: "bcp.yape_received", source: "bcp", pattern: wording("Recibiste un yapeo de {amount} de {name}") }],
  examples: [],
};
const nextVersion: Recognise = createRecogniser([...WALLETS.filter((w) => w.id !== "bcp"), BCP_NEXT]);

let t: TestApp;
let shop: ReturnType<TestApp["tenant"]>;
let phone: Phone;
let n = 0;

beforeEach(async () => {
  t = await makeTestApp();
  shop = t.tenant();
  phone = await activatePhone(t, { tenantId: shop.tenant_id });
});
afterEach(() => t.close());

const scope = () => ({ tenantId: shop.tenant_id, environment: "live" as const });
const live = () => bearer(shop.keys.live);

function notification(text: string, over: { package?: string; title?: string; occurred_at?: number; event_id?: string } = {}): NotificationEventBody {
  return {
    event_id: over.event_id ?? `ntf-${++n}-${crypto.randomUUID()}`,
    kind: "notification.posted",
    occurred_at: over.occurred_at ?? t.clock.now() - 5_000,
    raw: { package: over.package ?? YAPE, ...(over.title !== undefined ? { title: over.title } : {}), text },
  };
}

const send = (body: unknown, p = phone) =>
  signedRequest(t, p, "POST", "/device/v1/events", { body, headers: { "idempotency-key": (body as { event_id: string }).event_id } });

const rowOf = (eventId: string) => t.store.sqlite.query<any, [string]>("SELECT * FROM notifications WHERE event_id = ?").get(eventId);
const eventOf = (eventId: string) => t.store.sqlite.query<any, [string]>("SELECT * FROM events WHERE event_id = ?").get(eventId);

describe("a notification read as a payment", () => {
  test("pays the order exactly as a payment event would, and answers what the box read", async () => {
    await sync(t, scope(), [order("A-1", 5670)]);
    const body = notification(Y1, { title: "Confirmación de Pago" });
    const res = await send(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      event_id: body.event_id,
      status: "accepted",
      received_at: t.clock.now(),
      notification: { status: "payment", format: "yape.payment_received" },
      match: { status: "matched", order_id: "A-1" },
      payment: { source: "yape", amount: 5670, currency: "PEN", payer_name: "Yanina Man*", security_code: "666", reference: null },
    });
    // The payment is an event like any other: the reconciliation view and the feed show it.
    const events = await t.request("GET", "/connector/v1/events", { headers: live() });
    expect(events.body.data).toEqual([
      expect.objectContaining({ event_id: body.event_id, device_id: phone.deviceId, source: "yape", amount: 5670, payer_name: "Yanina Man*", security_code: "666", match_status: "matched", order_id: "A-1" }),
    ]);
    const feed = await t.request("GET", "/connector/v1/matches", { headers: live() });
    expect(feed.body.data.map((m: any) => [m.order_id, m.event_id])).toEqual([["A-1", body.event_id]]);
    expect(JSON.parse(eventOf(body.event_id).raw)).toEqual(body.raw); // raw kept with the payment
    expect(rowOf(body.event_id)).toMatchObject({ status: "payment", format: "yape.payment_received", text: Y1, title: "Confirmación de Pago" });
  });

  test("a replay gets the first answer, at any later time; the same id with another text is 422", async () => {
    const body = notification(Y1);
    const first = await send(body);
    t.clock.advance(40 * 24 * 3600 * 1000); // past 30 days: a new event this old would be refused
    const again = await send(body);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    const other = await send({ ...body, raw: { ...body.raw, text: Y1.replace("666", "667") } });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
    // Fields of a payment event are ignored for this kind: they do not make it another body.
    const withExtras = await send({ ...body, amount: 1, source: "plin", payer_name: "Otro" });
    expect(withExtras.status).toBe(201);
    expect(withExtras.text).toBe(first.text);
  });

  test("an event_id is one per phone across both kinds: a payment event cannot reuse a notification's, nor the reverse", async () => {
    const promo = notification(PROMO); // stored without an event row
    expect((await send(promo)).status).toBe(201);
    const payment = { event_id: promo.event_id, kind: "payment.received", occurred_at: t.clock.now(), source: "yape", amount: 100, currency: "PEN" };
    const reused = await send(payment);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("idempotency_key_reused");
    const paid = { ...payment, event_id: "pay-1" };
    expect((await send(paid)).status).toBe(201);
    const reverse = await send(notification(Y1, { event_id: "pay-1" }));
    expect(reverse.status).toBe(422);
    expect(t.store.sqlite.query("SELECT count(*) AS n FROM events").get()).toEqual({ n: 1 });
  });

  test("two phones reporting the same payment, one as a notification: the second is a duplicate and pays nothing", async () => {
    await sync(t, scope(), [order("A-1", 5670)]);
    const other = await activatePhone(t, { tenantId: shop.tenant_id, label: "Caja 2" });
    const first = await send(notification(Y1));
    expect(first.body.match.status).toBe("matched");
    const second = await send(
      { event_id: "p-2", kind: "payment.received", occurred_at: t.clock.now() - 4_000, source: "yape", amount: 5670, currency: "PEN", payer_name: "Yanina Man*", security_code: "666" },
      other,
    );
    expect(second.body.match).toEqual({ status: "duplicate", order_id: null });
  });

  test("two identical notifications at once store one event, one notification and one match", async () => {
    await sync(t, scope(), [order("A-1", 5670)]);
    const body = notification(Y1);
    const answers = await Promise.all([send(body), send(body), send(body)]);
    const stored = answers.filter((a) => a.status === 201);
    expect(stored.length).toBeGreaterThanOrEqual(1);
    for (const a of answers) expect([201, 409]).toContain(a.status);
    for (const a of stored) expect(a.body.match).toEqual({ status: "matched", order_id: "A-1" });
    expect(t.store.sqlite.query("SELECT count(*) AS n FROM events").get()).toEqual({ n: 1 });
    expect(t.store.sqlite.query("SELECT count(*) AS n FROM notifications").get()).toEqual({ n: 1 });
    expect(t.store.sqlite.query("SELECT count(*) AS n FROM matches").get()).toEqual({ n: 1 });
  });
});

describe("what is kept", () => {
  test("not_a_payment keeps no title or text, and is no event", async () => {
    const body = notification(PROMO, { title: "Yape" });
    const res = await send(body);
    expect(res.body).toMatchObject({ notification: { status: "not_a_payment", format: "yape.promotion" }, match: null, payment: null });
    const row = rowOf(body.event_id);
    expect(row).toMatchObject({ status: "not_a_payment", format: "yape.promotion", package: YAPE, title: null, text: null });
    expect(JSON.stringify(row)).not.toContain("préstamo");
    expect(eventOf(body.event_id)).toBeNull();
  });

  test("an unrecognised one keeps its text and is raised to webhooks; Android's redaction is counted on its phone", async () => {
    const hook = await t.request("POST", "/connector/v1/webhooks", { headers: live(), body: { url: "http://127.0.0.1:9/hooks", events: ["notification.unrecognized"] } });
    expect(hook.status).toBe(201);
    const bcp = notification(BCP_TEXT, { package: "com.bcp.bank.bcp", title: "BCP" });
    expect((await send(bcp)).body.notification).toEqual({ status: "unrecognized", format: null });
    const hidden = notification(REDACTED, { title: "Yape" });
    expect((await send(hidden)).body.notification).toEqual({ status: "unrecognized", format: "android.redacted" });
    expect((await send(notification(PROMO))).body.notification.status).toBe("not_a_payment"); // raises nothing
    expect(rowOf(bcp.event_id)).toMatchObject({ status: "unrecognized", text: BCP_TEXT, title: "BCP" });
    const bodies = t.store.sqlite.query<{ type: string; body: string }, []>("SELECT type, body FROM webhook_messages ORDER BY seq").all();
    expect(bodies.map((b) => b.type)).toEqual(["notification.unrecognized", "notification.unrecognized"]);
    expect(JSON.parse(bodies[0]!.body).data).toEqual({
      event_id: bcp.event_id,
      device_id: phone.deviceId,
      package: "com.bcp.bank.bcp",
      title: "BCP",
      text: BCP_TEXT,
      received_at: t.clock.now(),
    });
  });

  test("bad bodies are the contract's errors and store nothing", async () => {
    const base = notification(Y1);
    const cases: [unknown, string, string][] = [
      [{ ...base, raw: undefined }, "invalid_request", "/raw"],
      [{ ...base, raw: { package: YAPE, text: "" } }, "invalid_request", "/raw/text"],
      [{ ...base, raw: { package: "", text: Y1 } }, "invalid_request", "/raw/package"],
      [{ ...base, raw: { package: "p".repeat(257), text: Y1 } }, "invalid_request", "/raw/package"],
      [{ ...base, raw: { package: YAPE, text: "x".repeat(1025) } }, "invalid_request", "/raw/text"],
      [{ ...base, occurred_at: t.clock.now() + 400_000 }, "invalid_request", "/occurred_at"],
      [{ ...base, occurred_at: t.clock.now() - MAX_AGE_MS - 1 }, "event_too_old", "/occurred_at"],
    ];
    for (const [body, code, field] of cases) {
      const res = await send(body);
      expect([res.status, res.body.code]).toEqual([400, code]);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(t.store.sqlite.query("SELECT count(*) AS n FROM notifications").get()).toEqual({ n: 0 });
  });
});

describe("reading again", () => {
  test("at start with a newer version's formats: an unrecognised payment is stored and matched with its event_id and phone, replays unchanged", async () => {
    const bcp = notification(BCP_TEXT, { package: "com.bcp.bank.bcp" });
    const first = await send(bcp);
    expect(first.body.notification.status).toBe("unrecognized");
    await sync(t, scope(), [order("B-7", 900)]);
    const promo = notification(PROMO); // already not_a_payment: never read again
    await send(promo);

    t.clock.advance(3_600_000);
    const summary = await reparseThroughWriter({ store: t.reader, writer: t.writer, clock: t.clock, recognise: nextVersion });
    expect(summary).toEqual({ read: 1, payments: 1, not_a_payment: 0, too_old: 0, failed: 0 });
    expect(eventOf(bcp.event_id)).toMatchObject({ device_id: phone.deviceId, source: "bcp", amount: 900, payer_name: "Sebastian Jeremy Yparraguirre Ocaña", occurred_at: bcp.occurred_at });
    const matches = await t.request("GET", "/connector/v1/matches", { headers: live() });
    expect(matches.body.data.map((m: any) => [m.order_id, m.event_id])).toEqual([["B-7", bcp.event_id]]);
    expect(rowOf(bcp.event_id)).toMatchObject({ status: "payment", format: "bcp.yape_received", text: BCP_TEXT });
    // The phone retrying its old request still gets the first answer.
    const replay = await send(bcp);
    expect(replay.text).toBe(first.text);
    // Read again with the same formats: nothing left to read, nothing changes.
    expect(await reparseThroughWriter({ store: t.reader, writer: t.writer, clock: t.clock, recognise: nextVersion })).toEqual({ read: 0, payments: 0, not_a_payment: 0, too_old: 0, failed: 0 });
  });

  test("`cuadra notifications reparse` does the same on its own connection and says what it did", async () => {
    await sync(t, scope(), [order("B-7", 900, { expires_at: t.clock.now() + 7 * 24 * 3600 * 1000 })]);
    const bcp = notification(BCP_TEXT, { package: "com.bcp.bank.bcp" });
    const stale = notification(BCP_TEXT.replace("9.00", "12.00"), { package: "com.bcp.bank.bcp", occurred_at: t.clock.now() - 29 * 24 * 3600 * 1000 });
    const hidden = notification(REDACTED);
    for (const b of [bcp, stale, hidden]) await send(b);
    await t.writer.idle();
    t.clock.advance(2 * 24 * 3600 * 1000); // `stale` is now 31 days old
    const out: string[] = [];
    const run = (args: string[], rec: Recognise) =>
      runCli(commands, ["notifications", "reparse", ...args, "--data-dir", t.dataDir], { env: {}, clock: t.clock, recognise: rec, out: (s) => out.push(s), err: (s) => out.push(s) });
    expect(await run(["--json"], nextVersion)).toBe(0);
    expect(JSON.parse(out.pop()!)).toEqual({ read: 3, payments: 1, not_a_payment: 0, too_old: 1, failed: 0 });
    expect(rowOf(stale.event_id).status).toBe("unrecognized");
    expect(eventOf(stale.event_id)).toBeNull();
    const matches = await t.request("GET", "/connector/v1/matches", { headers: live() });
    expect(matches.body.data.map((m: any) => m.event_id)).toEqual([bcp.event_id]);
    expect(await run([], nextVersion)).toBe(0);
    expect(out.pop()).toBe(
      ["read again: 2", "became payments: 0", "not payments (text dropped): 0", "payments older than 30 days, left unrecognised: 1", "still unrecognised: 2"].join("\n"),
    );
  });

  test("a hidden text stored by a version that did not tell it apart gets its format when read again, and stays kept", async () => {
    const older = await makeTestApp({ recognise: () => ({ status: "unrecognized", format: null }) });
    try {
      const p = await activatePhone(older);
      const body = notification(REDACTED);
      const res = await signedRequest(older, p, "POST", "/device/v1/events", { body, headers: { "idempotency-key": body.event_id } });
      expect(res.body.notification).toEqual({ status: "unrecognized", format: null });
      expect(await reparseThroughWriter({ store: older.reader, writer: older.writer, clock: older.clock, recognise })).toEqual({ read: 1, payments: 0, not_a_payment: 0, too_old: 0, failed: 0 });
      const row = older.store.sqlite.query<any, [string]>("SELECT status, format, text FROM notifications WHERE event_id = ?").get(body.event_id);
      expect(row).toEqual({ status: "unrecognized", format: "android.redacted", text: REDACTED });
    } finally {
      await older.close();
    }
  });

  test("a reading that cannot be written fails alone, and one more than 30 days late is not stored: the others of the batch are applied", async () => {
    const a = notification(BCP_TEXT, { package: "com.bcp.bank.bcp" });
    const b = notification("Tienes S/ 30.00 en puntos para canjear", { package: "com.bcp.bank.bcp" });
    const old = notification(BCP_TEXT.replace("9.00", "7.00"), { package: "com.bcp.bank.bcp", occurred_at: t.clock.now() - 29 * 24 * 3600 * 1000 });
    for (const x of [a, b, old]) expect((await send(x)).body.notification.status).toBe("unrecognized");
    t.clock.advance(2 * 24 * 3600 * 1000); // `old` is now 31 days old
    // A recogniser's bug: a payment without a source, which the events table refuses.
    const broken = { status: "payment", format: "bcp.broken", payment: { source: null, amount: 900, currency: "PEN", payer_name: null, security_code: null, reference: null } } as any;
    const late = { status: "payment", format: "bcp.yape_received", payment: { source: "bcp", amount: 700, currency: "PEN", payer_name: null, security_code: null, reference: null } } as const;
    const counts = await t.writer.run("rereadNotifications", {
      readings: [
        { seq: rowOf(a.event_id).seq, reading: broken },
        { seq: rowOf(b.event_id).seq, reading: { status: "not_a_payment", format: "bcp.points" } },
        { seq: rowOf(old.event_id).seq, reading: late },
      ],
      now: t.clock.now(),
    });
    expect(counts).toEqual({ payments: 0, not_a_payment: 1, too_old: 1, failed: 1 });
    expect(eventOf(old.event_id)).toBeNull(); // the writer keeps the 30-day rule too
    expect(rowOf(a.event_id)).toMatchObject({ status: "unrecognized", text: BCP_TEXT });
    expect(eventOf(a.event_id)).toBeNull();
    expect(rowOf(b.event_id)).toMatchObject({ status: "not_a_payment", text: null });
  });

  test("a payment found more than 30 days late is counted, and no write is asked for it at every start", async () => {
    const stale = notification(BCP_TEXT, { package: "com.bcp.bank.bcp", occurred_at: t.clock.now() - 29 * 24 * 3600 * 1000 });
    await send(stale);
    t.clock.advance(2 * 24 * 3600 * 1000);
    const asked: unknown[] = [];
    const summary = await reparseNotifications(t.reader.db, nextVersion, t.clock.now(), (readings) => {
      asked.push(...readings);
      return { payments: 0, not_a_payment: 0, too_old: 0, failed: 0 };
    });
    expect(summary).toEqual({ read: 1, payments: 0, not_a_payment: 0, too_old: 1, failed: 0 });
    expect(asked).toEqual([]);
  });

  test("a newer version that knows an unrecognised text is not a payment drops its text", async () => {
    // Neither is a format or a look-alike the box knows: both are kept.
    const odd = notification("Tu resumen semanal de movimientos está listo", { package: "com.bcp.bank.bcp" });
    const withAmount = notification("Tienes S/ 30.00 en puntos para canjear", { package: "com.bcp.bank.bcp" });
    expect((await send(odd)).body.notification.status).toBe("unrecognized");
    expect((await send(withAmount)).body.notification.status).toBe("unrecognized");
    const knowsPoints: Recognise = (nt) => (nt.text.includes("puntos") ? { status: "not_a_payment", format: "bcp.points" } : recognise(nt));
    expect(await reparseThroughWriter({ store: t.reader, writer: t.writer, clock: t.clock, recognise: knowsPoints })).toEqual({ read: 2, payments: 0, not_a_payment: 1, too_old: 0, failed: 0 });
    expect(rowOf(odd.event_id)).toMatchObject({ status: "unrecognized", text: "Tu resumen semanal de movimientos está listo" });
    expect(rowOf(withAmount.event_id)).toMatchObject({ status: "not_a_payment", format: "bcp.points", text: null, title: null });
  });
});

describe("the connector's views", () => {
  test("GET /connector/v1/notifications lists them in order, by status, paged, scoped to the key", async () => {
    const sent = [notification(Y1), notification(PROMO, { title: "Yape" }), notification(REDACTED, { title: "Yape" }), notification("Anat Marticorena te ha plineado S/ 100.00", { package: "pe.com.interbank.mobilebanking" })];
    for (const b of sent) {
      await send(b);
      t.clock.advance(1000);
    }
    const all = await t.request("GET", "/connector/v1/notifications", { headers: live() });
    expect(all.status).toBe(200);
    expect(all.body.data.map((d: any) => [d.event_id, d.status, d.format])).toEqual([
      [sent[0]!.event_id, "payment", "yape.payment_received"],
      [sent[1]!.event_id, "not_a_payment", "yape.promotion"],
      [sent[2]!.event_id, "unrecognized", "android.redacted"],
      [sent[3]!.event_id, "payment", "interbank.plin_received"],
    ]);
    expect(all.body.data[1]).toEqual({
      event_id: sent[1]!.event_id,
      device_id: phone.deviceId,
      package: YAPE,
      title: null,
      text: null,
      status: "not_a_payment",
      format: "yape.promotion",
      occurred_at: sent[1]!.occurred_at,
      received_at: expect.any(Number),
    });
    const payments = await t.request("GET", "/connector/v1/notifications?status=payment&limit=1", { headers: live() });
    expect(payments.body.data.map((d: any) => d.event_id)).toEqual([sent[0]!.event_id]);
    expect(payments.body.has_more).toBe(true);
    const next = await t.request("GET", `/connector/v1/notifications?status=payment&limit=1&after=${payments.body.next_cursor}`, { headers: live() });
    expect(next.body.data.map((d: any) => d.event_id)).toEqual([sent[3]!.event_id]);
    expect(next.body.has_more).toBe(false);
    // Another environment's key, or another feed's cursor, sees nothing of these.
    expect((await t.request("GET", "/connector/v1/notifications", { headers: bearer(shop.keys.test) })).body.data).toEqual([]);
    const events = await t.request("GET", "/connector/v1/events", { headers: live() });
    const wrong = await t.request("GET", `/connector/v1/notifications?after=${events.body.next_cursor}`, { headers: live() });
    expect([wrong.status, wrong.body.code]).toEqual([400, "invalid_cursor"]);
    const bad = await t.request("GET", "/connector/v1/notifications?status=paid", { headers: live() });
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_request"]);
  });

  test("GET /connector/v1/devices counts each phone's notifications of the last 7 days", async () => {
    const other = await activatePhone(t, { tenantId: shop.tenant_id, label: "Caja 2" });
    await send(notification(REDACTED)); // 8 days before "now" below: outside the window
    t.clock.advance(8 * 24 * 3600 * 1000 - 60_000);
    await send(notification(Y1));
    await send(notification(PROMO));
    await send(notification(PROMO));
    await send(notification(REDACTED));
    const lastHidden = t.clock.now();
    await send(notification(Y1.replace("666", "111")), other);
    t.clock.advance(60_000);
    const res = await t.request("GET", "/connector/v1/devices", { headers: live() });
    const byId = Object.fromEntries(res.body.data.map((d: any) => [d.device_id, d.notifications]));
    expect(byId[phone.deviceId]).toEqual({ payment: 1, not_a_payment: 2, unrecognized: 1, last_unrecognized_at: lastHidden });
    expect(byId[other.deviceId]).toEqual({ payment: 1, not_a_payment: 0, unrecognized: 0, last_unrecognized_at: null });
  });
});
