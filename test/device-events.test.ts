// contract §6: POST /device/v1/events through app.handle — validation, idempotency, replays,
// in-flight retries and duplicates across phones.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ApiError } from "../src/http/errors";
import { ingestPayment } from "../src/payments/ingest";
import { parsePaymentEvent } from "../src/payments/model";
import { devices, events } from "../src/store/schema";
import { activatePhone, paymentEvent, postEvent, type Phone } from "./support/device";
import { makeTestApp, whileDatabaseLocked } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

const rowsOf = (deviceId: string) => t.store.db.select().from(events).where(eq(events.deviceId, deviceId)).all();

describe("first receipt", () => {
  test("201 accepted, unmatched, stored with its first answer; last_seen_at set", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t, { reference: "00123456", raw: { package: "com.bcp.innovacxion.yapeapp", title: "Yape", text: "Te yapearon S/ 25" } });
    const res = await postEvent(t, phone, ev);
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(res.body).toEqual({ event_id: ev.event_id, status: "accepted", received_at: t.clock.now(), match: { status: "unmatched", order_id: null } });
    const [row] = rowsOf(phone.deviceId);
    expect(row).toMatchObject({
      eventId: ev.event_id,
      tenantId: phone.tenantId,
      environment: "live",
      amount: 2500,
      reference: "00123456",
      matchStatus: "unmatched",
      responseStatus: 201,
      duplicateOf: null,
    });
    expect(JSON.parse(row!.responseBody)).toEqual(res.body);
    expect(JSON.parse(row!.raw!)).toEqual(ev.raw!);
    expect(t.store.db.select().from(devices).where(eq(devices.id, phone.deviceId)).get()!.lastSeenAt).toBe(t.clock.now());
  });

  test("null and unknown fields are accepted and ignored", async () => {
    const phone = await activatePhone(t);
    const res = await postEvent(t, phone, { ...paymentEvent(t), payer_name: null, reference: null, raw: null, app_extra: { x: 1 } });
    expect(res.status).toBe(201);
    expect(rowsOf(phone.deviceId)[0]).toMatchObject({ payerName: null, reference: null, raw: null });
  });
});

describe("400s", () => {
  test.each<[string, Record<string, unknown>, string]>([
    ["amount as a string", { amount: "2500" }, "invalid_request"],
    ["negative amount", { amount: -1 }, "invalid_request"],
    ["missing source", { source: undefined }, "invalid_request"],
    ["occurred_at 6 minutes ahead", { occurred_at: 1_795_262_400_000 + 360_000 }, "invalid_request"],
    ["currency USD", { currency: "USD" }, "unsupported_currency"],
    ["kind payment.refunded", { kind: "payment.refunded" }, "unsupported_event_kind"],
    ["occurred_at 31 days ago", { occurred_at: 1_795_262_400_000 - 31 * 86_400_000 }, "event_too_old"],
  ])("%s → %s, nothing stored", async (_name, over, code) => {
    const phone = await activatePhone(t);
    t.clock.set(1_795_262_400_000);
    const res = await postEvent(t, phone, paymentEvent(t, over));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(rowsOf(phone.deviceId)).toHaveLength(0);
  });

  test("invalid_request names every bad field as a JSON pointer", async () => {
    const phone = await activatePhone(t);
    const res = await postEvent(t, phone, paymentEvent(t, { amount: 1.5, source: "Yape!" }));
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["/amount", "/source"]);
  });

  test("Idempotency-Key missing → idempotency_key_missing; different → idempotency_key_mismatch; quoted is fine", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const missing = await postEvent(t, phone, ev, { headers: { "idempotency-key": null } });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("idempotency_key_missing");
    const mismatch = await postEvent(t, phone, ev, { headers: { "idempotency-key": "another-id" } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe("idempotency_key_mismatch");
    expect(rowsOf(phone.deviceId)).toHaveLength(0);
    const quoted = await postEvent(t, phone, ev, { headers: { "idempotency-key": `"${ev.event_id}"` } });
    expect(quoted.status).toBe(201);
  });
});

describe("idempotency", () => {
  test("re-sent dozens of times, minutes apart: the identical first answer with Idempotent-Replayed: true, one row", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const first = await postEvent(t, phone, ev);
    expect(first.status).toBe(201);
    for (let i = 0; i < 36; i++) {
      t.clock.advance(5 * 60_000); // the phone lost the network; its retries come minutes apart
      const again = await postEvent(t, phone, ev);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
    }
    expect(rowsOf(phone.deviceId)).toHaveLength(1);
  });

  test("permanent: a replay 60 days later is still answered, though the event is now too old to be new", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const first = await postEvent(t, phone, ev);
    t.clock.advance(60 * 86_400_000);
    const again = await postEvent(t, phone, ev);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("same body in another key order, with unknown fields: a replay", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    await postEvent(t, phone, ev);
    const reordered = { ...Object.fromEntries(Object.entries(ev).reverse()), new_app_field: true, reference: null };
    const again = await postEvent(t, phone, reordered);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("same event_id, different body → 422 idempotency_key_reused; the stored event is unchanged", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    await postEvent(t, phone, ev);
    const changed = await postEvent(t, phone, { ...ev, amount: ev.amount + 1 });
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe("idempotency_key_reused");
    expect(rowsOf(phone.deviceId)).toMatchObject([{ amount: ev.amount }]);
  });

  test("another phone may use the same event_id: deduplication is per device", async () => {
    const a = await activatePhone(t);
    const b = await activatePhone(t, { tenantId: a.tenantId });
    const ev = paymentEvent(t);
    expect((await postEvent(t, a, ev)).status).toBe(201);
    const fromB = await postEvent(t, b, { ...ev, amount: 999 });
    expect(fromB.status).toBe(201);
    expect(fromB.headers.get("idempotent-replayed")).toBeNull();
  });

  test("twenty copies at once: one stored, the others 409 idempotency_key_in_use (Retry-After: 1) or the replay", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const results = await Promise.all(Array.from({ length: 20 }, () => postEvent(t, phone, ev)));
    const firsts = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    const inUse = results.filter((r) => r.status === 409);
    const replays = results.filter((r) => r.headers.get("idempotent-replayed") === "true");
    expect(firsts).toHaveLength(1);
    // How many arrive while the first is in flight depends on timing; each is one or the other.
    expect(inUse.length + replays.length).toBe(19);
    for (const r of inUse) {
      expect(r.body.code).toBe("idempotency_key_in_use");
      expect(r.headers.get("retry-after")).toBe("1");
    }
    expect(rowsOf(phone.deviceId)).toHaveLength(1);
    // Once stored, a retry is a replay.
    expect((await postEvent(t, phone, ev)).headers.get("idempotent-replayed")).toBe("true");
  });

  test("twenty copies at once of an event already stored: twenty replays, no 409", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    expect((await postEvent(t, phone, ev)).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 20 }, () => postEvent(t, phone, ev)));
    expect(results.map((r) => [r.status, r.headers.get("idempotent-replayed")])).toEqual(Array.from({ length: 20 }, () => [201, "true"]));
  });

  test("a retry while the first is being stored gets 409 with Retry-After: 1 (deterministic, at the ingest layer)", async () => {
    const phone = await activatePhone(t);
    const scope = { tenantId: phone.tenantId, environment: phone.environment, deviceId: phone.deviceId };
    const event = parsePaymentEvent(paymentEvent(t));
    // A CLI command holds the lock, so the first copy is still with the writer when the retry comes
    // (without it the writer thread may commit before the retry is even read).
    let first!: ReturnType<typeof ingestPayment>;
    const err = await whileDatabaseLocked(t.store, async () => {
      first = ingestPayment(t, scope, event); // in flight until its commit
      return ingestPayment(t, scope, event).then(
        () => null,
        (e: ApiError) => e,
      );
    });
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.code).toBe("idempotency_key_in_use");
    expect(err!.status).toBe(409);
    expect(err!.headers["retry-after"]).toBe("1");
    expect((await first).status).toBe(201);
    // Committed now: the same call is a replay.
    expect((await ingestPayment(t, scope, event)).replayed).toBe(true);
  });

  test("two sends of one event from the device client both end with the first answer", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const [a, b] = await Promise.all([phone.client.sendEvent(ev), phone.client.sendEvent(ev)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body).toEqual(b.body);
    expect(rowsOf(phone.deviceId)).toHaveLength(1);
  });
});

describe("duplicates across phones", () => {
  async function twoPhones(): Promise<[Phone, Phone]> {
    const a = await activatePhone(t, { label: "Caja" });
    const b = await activatePhone(t, { tenantId: a.tenantId, label: "Dueña" });
    return [a, b];
  }

  test("two phones report the same payment: the second is a duplicate of the first and is stored", async () => {
    const [a, b] = await twoPhones();
    const seen = paymentEvent(t);
    const first = await postEvent(t, a, seen);
    t.clock.advance(3_000);
    const fromB = paymentEvent(t, { occurred_at: seen.occurred_at + 1_500 });
    const second = await postEvent(t, b, fromB);
    expect(first.body.match.status).toBe("unmatched");
    expect(second.status).toBe(201);
    expect(second.body.match).toEqual({ status: "duplicate", order_id: null });
    expect(rowsOf(b.deviceId)).toMatchObject([{ matchStatus: "duplicate", duplicateOf: seen.event_id }]);
    // The duplicate's own replay is the duplicate answer.
    const replay = await postEvent(t, b, fromB);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(second.text);
  });

  test("same source and reference: duplicate whatever the amount text or time", async () => {
    const [a, b] = await twoPhones();
    await postEvent(t, a, paymentEvent(t, { source: "bcp", reference: "OP-77", payer_name: "JUAN PEREZ" }));
    t.clock.advance(10 * 60_000);
    const res = await postEvent(t, b, paymentEvent(t, { source: "bcp", reference: "OP-77", payer_name: "Juan Perez", amount: 2500 }));
    expect(res.body.match.status).toBe("duplicate");
  });

  test.each<[string, Record<string, unknown>]>([
    ["other amount", { amount: 2600 }],
    ["other payer", { payer_name: "Luis Q*" }],
    ["other security code", { security_code: "999" }],
    ["more than 120 000 ms apart", { occurred_at: 1_795_262_400_000 - 5_000 + 120_001 }],
    ["other source", { source: "plin" }],
  ])("not a duplicate: %s", async (_name, over) => {
    t.clock.set(1_795_262_400_000);
    const [a, b] = await twoPhones();
    await postEvent(t, a, paymentEvent(t));
    t.clock.set(1_795_262_400_000 + 200_000);
    const res = await postEvent(t, b, paymentEvent(t, { occurred_at: 1_795_262_400_000 - 5_000, ...over }));
    expect(res.body.match.status).toBe("unmatched");
  });

  test("one phone's own events are never duplicates of each other", async () => {
    const [a] = await twoPhones();
    await postEvent(t, a, paymentEvent(t));
    expect((await postEvent(t, a, paymentEvent(t))).body.match.status).toBe("unmatched");
  });

  test("another environment or another shop is invisible", async () => {
    const a = await activatePhone(t);
    const testPhone = await activatePhone(t, { tenantId: a.tenantId, environment: "test" });
    const otherShop = await activatePhone(t);
    await postEvent(t, a, paymentEvent(t, { reference: "R1" }));
    expect((await postEvent(t, testPhone, paymentEvent(t, { reference: "R1" }))).body.match.status).toBe("unmatched");
    expect((await postEvent(t, otherShop, paymentEvent(t, { reference: "R1" }))).body.match.status).toBe("unmatched");
  });

  test("a third phone's report points at the first report, not at the duplicate", async () => {
    const [a, b] = await twoPhones();
    const c = await activatePhone(t, { tenantId: a.tenantId });
    const original = paymentEvent(t);
    await postEvent(t, a, original);
    await postEvent(t, b, paymentEvent(t));
    await postEvent(t, c, paymentEvent(t));
    expect(rowsOf(c.deviceId)).toMatchObject([{ matchStatus: "duplicate", duplicateOf: original.event_id }]);
  });
});

test("the match is decided and written in the storing transaction: an event that fits one pending order answers matched", async () => {
  const tenant = t.tenant();
  const phone = await activatePhone(t, { tenantId: tenant.tenant_id });
  const synced = await t.request("POST", "/connector/v1/orders", {
    headers: { authorization: `Bearer ${tenant.keys.live}` },
    body: { orders: [{ id: "A-100", amount: 4250, currency: "PEN" }] },
  });
  expect(synced.status).toBe(200);
  const ev = paymentEvent(t, { amount: 4250 });
  const res = await postEvent(t, phone, ev);
  expect(res.status).toBe(201);
  expect(res.body.match).toEqual({ status: "matched", order_id: "A-100" });
  expect(rowsOf(phone.deviceId)).toMatchObject([{ matchStatus: "matched", orderId: "A-100" }]);
  // The replay is the first answer, byte for byte.
  const again = await postEvent(t, phone, ev);
  expect(again.text).toBe(res.text);
});

describe("another write holds the database", () => {
  test("the phone gets 503 service_unavailable with Retry-After; the same event is stored when it retries", async () => {
    // A CLI command holds the lock; the writer waits 50 ms for it instead of 5 s.
    const busy = await makeTestApp({ busyTimeoutMs: 50 });
    try {
      const phone = await activatePhone(busy);
      const ev = paymentEvent(busy, {});
      const stored = () => busy.store.sqlite.query("SELECT seq FROM events WHERE device_id = ?").all(phone.deviceId);
      const res = await whileDatabaseLocked(busy.store, () => postEvent(busy, phone, ev));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(res.body.code).toBe("service_unavailable");
      expect(stored()).toHaveLength(0);
      const retry = await postEvent(busy, phone, ev);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
      expect(stored()).toHaveLength(1);
    } finally {
      await busy.close();
    }
  });
});
