// Recent events and older ones (schema.ts, the `recent` column; payments/recent-events.ts): a new
// event is stored recent, the mover moves recent events into the big indexes when the box is
// quiet, and nothing a client sees changes with the move: replays, reused keys, duplicates across
// phones, manual matches. The database itself keeps one event per phone and event id across both.
import { afterAll, describe, expect, test } from "bun:test";
import {
  MAX_RETRY_AFTER_FAILURE_MS,
  MOVE_BATCH,
  MOVE_BATCH_BUSY,
  QUIET_AFTER_MS,
  RECENT_CAP,
  RETRY_AFTER_FAILURE_MS,
  moveDueRecentEvents,
  moveRecentEvents,
  recentEventsMover,
  recentEventsToMove,
} from "../src/payments/recent-events";
import { activatePhone, paymentEvent, postEvent } from "./support/device";
import { makeTestApp, whileDatabaseLocked } from "./support/harness";
import { bearer } from "./support/connector";

// The writer waits 50 ms, not 5 s, for a lock held by another connection (the mover tests hold one).
const t = await makeTestApp({ busyTimeoutMs: 50 });
afterAll(() => t.close());

const recentOf = (eventId: string) =>
  t.store.sqlite.query<{ recent: number }, [string]>("SELECT recent FROM events WHERE event_id = ?").all(eventId).map((r) => r.recent);
/** moveRecentEvents in a transaction of the tests' own connection (serve runs it inside moveDueRecentEvents, on the writer). */
const move = (limit: number) => t.store.db.transaction((tx) => moveRecentEvents(tx, limit));
const moveAll = () => move(1_000_000);
/** One step of serve's mover, on the writer thread. */
const moveDue = (now: number) => t.writer.run("moveDueRecentEvents", { now });

describe("what clients see does not change when events move", () => {
  test("a phone's event, moved: the same event again is a replay, another body with its id is 422", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t, { reference: "OP-1" });
    const first = await postEvent(t, phone, ev);
    expect(first.status).toBe(201);
    expect(recentOf(ev.event_id)).toEqual([1]);
    expect(moveAll()).toBeGreaterThanOrEqual(1);
    expect(recentOf(ev.event_id)).toEqual([0]);

    const again = await postEvent(t, phone, ev);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const reused = await postEvent(t, phone, { ...ev, amount: 9900 });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("idempotency_key_reused");
    expect(recentOf(ev.event_id)).toEqual([0]); // still one row
  });

  test("a test payment (no phone), moved: the same key again is a replay", async () => {
    const ten = t.tenant();
    const headers = { ...bearer(ten.keys.test), "idempotency-key": "moved-1" };
    const body = { kind: "payment.received", occurred_at: t.clock.now() - 5000, source: "plin", amount: 4321, currency: "PEN" };
    const first = await t.request("POST", "/connector/v1/test/payments", { headers, body });
    expect(first.status).toBe(201);
    moveAll();
    const again = await t.request("POST", "/connector/v1/test/payments", { headers, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  test("a second phone reports a payment whose first report has moved: duplicate, by reference and by details", async () => {
    const a = await activatePhone(t);
    const b = await activatePhone(t, { tenantId: a.tenantId });
    const byRef = paymentEvent(t, { reference: "OP-77", amount: 1234 });
    const byDetails = paymentEvent(t, { amount: 5678, security_code: undefined });
    expect((await postEvent(t, a, byRef)).status).toBe(201);
    expect((await postEvent(t, a, byDetails)).status).toBe(201);
    moveAll();
    // 10 minutes apart: only the reference says it is the same payment.
    const dupRef = await postEvent(t, b, { ...byRef, event_id: `${byRef.event_id}-b`, occurred_at: byRef.occurred_at - 600_000 });
    expect(dupRef.body.match).toEqual({ status: "duplicate", order_id: null });
    const dupDetails = await postEvent(t, b, { ...byDetails, event_id: `${byDetails.event_id}-b` });
    expect(dupDetails.body.match).toEqual({ status: "duplicate", order_id: null });
  });

  test("a person's match finds an event that has moved", async () => {
    const shop = t.tenant();
    const other = await activatePhone(t, { tenantId: shop.tenant_id });
    const ev = paymentEvent(t, { amount: 3100, security_code: undefined, payer_name: undefined });
    expect((await postEvent(t, other, ev)).body.match.status).toBe("unmatched");
    moveAll();
    const headers = bearer(shop.keys.live);
    expect((await t.request("POST", "/connector/v1/orders", { headers, body: { orders: [{ id: "MV-1", amount: 9999, currency: "PEN" }] } })).status).toBe(200);
    const res = await t.request("POST", "/connector/v1/matches", { headers, body: { order_id: "MV-1", event_id: ev.event_id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ order_id: "MV-1", event_id: ev.event_id, method: "manual" });
  });

  test("a person's match finds a test payment that has moved", async () => {
    const shop = t.tenant();
    const headers = bearer(shop.keys.test);
    const paid = await t.request("POST", "/connector/v1/test/payments", {
      headers,
      body: { kind: "payment.received", occurred_at: t.clock.now() - 5000, source: "yape", amount: 4100, currency: "PEN" },
    });
    expect(paid.body.match.status).toBe("unmatched");
    moveAll();
    expect((await t.request("POST", "/connector/v1/orders", { headers, body: { orders: [{ id: "MV-2", amount: 9999, currency: "PEN" }] } })).status).toBe(200);
    const res = await t.request("POST", "/connector/v1/matches", { headers, body: { order_id: "MV-2", event_id: paid.body.event_id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ order_id: "MV-2", event_id: paid.body.event_id, device_id: null, method: "manual" });
  });
});

describe("the database keeps one event per phone and event id across both partitions", () => {
  const insert = (deviceId: string, eventId: string, tenantId: string, recent: 0 | 1) =>
    t.store.sqlite.run(
      `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, occurred_at, received_at,
         body_hash, response_status, response_body, match_status, recent)
       VALUES (?, ?, ?, 'live', 'payment.received', 'yape', 100, 'PEN', 1, 1, 'h', 201, '{}', 'unmatched', ?)`,
      [eventId, deviceId, tenantId, recent],
    );

  test("a recent copy of an old event, or an old copy of a recent one, is refused", async () => {
    const phone = await activatePhone(t);
    insert(phone.deviceId, "dup-old", phone.tenantId, 0);
    expect(() => insert(phone.deviceId, "dup-old", phone.tenantId, 1)).toThrow(/UNIQUE constraint failed: events.device_id, events.event_id/);
    insert(phone.deviceId, "dup-recent", phone.tenantId, 1);
    expect(() => insert(phone.deviceId, "dup-recent", phone.tenantId, 0)).toThrow(/UNIQUE constraint failed/);
    expect(() => insert(phone.deviceId, "dup-recent", phone.tenantId, 1)).toThrow(/UNIQUE constraint failed/);
    // Another phone may use the same event id.
    const other = await activatePhone(t, { tenantId: phone.tenantId });
    expect(() => insert(other.deviceId, "dup-old", phone.tenantId, 1)).not.toThrow();
    // Nor can a change of device or event id make two of one (nothing does that; the rule holds anyway).
    expect(() => t.store.sqlite.run("UPDATE events SET device_id = ? WHERE device_id = ? AND event_id = 'dup-old'", [phone.deviceId, other.deviceId])).toThrow(
      /UNIQUE constraint failed/,
    );
    expect(() => t.store.sqlite.run("UPDATE events SET event_id = 'dup-old' WHERE device_id = ? AND event_id = 'dup-recent'", [phone.deviceId])).toThrow(
      /UNIQUE constraint failed/,
    );
  });
});

describe("the mover", () => {
  const newestSeq = () => t.store.sqlite.query<{ s: number }, []>("SELECT max(seq) AS s FROM events").get()!.s;
  const recentCount = () => t.store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM events WHERE recent = 1").get()!.n;

  test("moves the oldest recent events first, at most the batch, and nothing when none are recent", async () => {
    moveAll();
    expect(move(10)).toBe(0);
    const phone = await activatePhone(t);
    const evs = [paymentEvent(t), paymentEvent(t), paymentEvent(t)];
    for (const ev of evs) expect((await postEvent(t, phone, ev)).status).toBe(201);
    expect(move(2)).toBe(2);
    expect(evs.map((e) => recentOf(e.event_id)[0])).toEqual([0, 0, 1]);
    expect(move(2)).toBe(1);
    expect(recentCount()).toBe(0);
  });

  test("waits while events keep coming, and moves a batch per step once the box has been quiet for a minute", async () => {
    moveAll();
    const phone = await activatePhone(t);
    for (let i = 0; i < 3; i++) await postEvent(t, phone, paymentEvent(t));
    expect(recentEventsToMove(t.store.db, t.clock.now())).toBe(0);
    t.clock.advance(QUIET_AFTER_MS - 1);
    expect(await moveDue(t.clock.now())).toBe(0);
    expect(recentCount()).toBe(3);
    t.clock.advance(1);
    expect(recentEventsToMove(t.store.db, t.clock.now())).toBe(MOVE_BATCH);
    expect(await moveDue(t.clock.now())).toBe(3);
    expect(recentCount()).toBe(0);
    expect(recentEventsToMove(t.store.db, t.clock.now())).toBe(0);
  });

  test("moves smaller batches while busy once more than RECENT_CAP events wait", async () => {
    moveAll();
    const phone = await activatePhone(t);
    await postEvent(t, phone, paymentEvent(t));
    // Newest events that many seqs after the oldest recent one (seq only grows: that many recent
    // events at most): RECENT_CAP may wait, one more may not.
    const probe = (id: string, seq: number) =>
      t.store.sqlite.run(
        `INSERT INTO events (seq, event_id, device_id, tenant_id, environment, kind, source, amount, currency, occurred_at, received_at,
           body_hash, response_status, response_body, match_status, recent)
         VALUES (?, ?, ?, ?, 'live', 'payment.received', 'yape', 100, 'PEN', 1, ?, 'h', 201, '{}', 'unmatched', 1)`,
        [seq, id, phone.deviceId, phone.tenantId, t.clock.now()],
      );
    const oldest = newestSeq();
    probe("cap-probe-1", oldest + RECENT_CAP - 1);
    expect(recentEventsToMove(t.store.db, t.clock.now())).toBe(0);
    probe("cap-probe-2", oldest + RECENT_CAP);
    expect(recentEventsToMove(t.store.db, t.clock.now())).toBe(MOVE_BATCH_BUSY);
    expect(await moveDue(t.clock.now())).toBe(3);
    expect(recentEventsToMove(t.store.db, t.clock.now())).toBe(0);
  });

  /** A new mover, with exactly one recent event and the box quiet since then. */
  const moverWithOneQuietEvent = async () => {
    moveAll();
    await postEvent(t, await activatePhone(t), paymentEvent(t));
    t.clock.advance(QUIET_AFTER_MS);
    return recentEventsMover(moveDue);
  };

  test("after a failure it waits before trying again, longer each time, and starts over once a move works", async () => {
    const mover = await moverWithOneQuietEvent();
    const failed = await whileDatabaseLocked(t.store, async () => {
      const first = await mover.step(t.clock.now());
      const during = await mover.step(t.clock.now() + RETRY_AFTER_FAILURE_MS - 1);
      const second = await mover.step(t.clock.now() + RETRY_AFTER_FAILURE_MS);
      return { first, during, second };
    });
    expect(failed.first).toMatchObject({ failures: 1, retryAt: t.clock.now() + RETRY_AFTER_FAILURE_MS });
    expect((failed.first as { failed: Error }).failed.message).toMatch(/locked/);
    expect(failed.during).toEqual({ waitingUntil: t.clock.now() + RETRY_AFTER_FAILURE_MS });
    expect(failed.second).toMatchObject({ failures: 2, retryAt: t.clock.now() + 3 * RETRY_AFTER_FAILURE_MS });
    expect(recentCount()).toBe(1);
    expect(await mover.step(t.clock.now() + 3 * RETRY_AFTER_FAILURE_MS)).toEqual({ moved: 1 });
    expect(await mover.step(t.clock.now() + 3 * RETRY_AFTER_FAILURE_MS)).toEqual({ moved: 0 });
  });

  test("the wait after failures stops growing at MAX_RETRY_AFTER_FAILURE_MS", async () => {
    const mover = await moverWithOneQuietEvent();
    const waits = await whileDatabaseLocked(t.store, async () => {
      const out: number[] = [];
      let at = t.clock.now();
      for (let i = 0; i < 10; i++) {
        const step = await mover.step(at) as { retryAt: number };
        out.push(step.retryAt - at);
        at = step.retryAt;
      }
      return out;
    });
    expect(waits.slice(0, 3)).toEqual([RETRY_AFTER_FAILURE_MS, 2 * RETRY_AFTER_FAILURE_MS, 4 * RETRY_AFTER_FAILURE_MS]);
    expect(waits.at(-1)).toBe(MAX_RETRY_AFTER_FAILURE_MS);
    expect(Math.max(...waits)).toBe(MAX_RETRY_AFTER_FAILURE_MS);
  });
});
