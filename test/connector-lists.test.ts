// contract §19: lists for people. GET /connector/v1/orders (newest first, effective statuses,
// opaque cursors of their own) and GET /connector/v1/events/{event_id} with its candidate orders.
import { afterAll, describe, expect, test } from "bun:test";
import { cursorsOf } from "../src/connector/cursor";
import { CANDIDATES_MAX, SAME_AMOUNT_CANDIDATES_MAX } from "../src/connector/model";
import { makeTestApp } from "./support/harness";
import { bearer, order, pay, sync, type Scope } from "./support/connector";
import type { OrderInput } from "../src/connector/orders.service";

// Paging through every page of several filters takes more requests than a key's bucket holds.
const t = await makeTestApp({ rateLimitScale: 0 });
afterAll(() => t.close());
const MIN = 60_000;
const HOUR = 3600_000;
const EARLY = 120_000;

let phones = 0;
function shop(environment: "live" | "test" = "test") {
  const ten = t.tenant();
  const scope: Scope = { tenantId: ten.tenant_id, environment };
  const headers = bearer(ten.keys[environment]);
  return {
    ten,
    scope,
    headers,
    /** A phone of this shop only (test phones may not be shared). */
    phone: () => `dev_lists_${++phones}`,
    list: (query = "") => t.request("GET", `/connector/v1/orders${query}`, { headers }),
    event: (id: string, query = "") => t.request("GET", `/connector/v1/events/${id}${query}`, { headers }),
    sync: (orders: OrderInput[]) => sync(t, scope, orders),
  };
}

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((o) => o.id);
const candidateIds = (res: { body: { candidates: { id: string }[] } }) => res.body.candidates.map((o) => o.id);

/** Every page of a list, following next_cursor; checks that has_more tells the truth. */
async function allPages(s: ReturnType<typeof shop>, query: string, limit: number): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const res = await s.list(`?limit=${limit}${query}${after ? `&after=${after}` : ""}`);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    if (after) expect(res.body.data.length).toBeGreaterThan(0); // has_more promised more
    out.push(...ids(res));
    if (!res.body.has_more) {
      // the last cursor leads nowhere further
      const end = await s.list(`?limit=${limit}${query}&after=${res.body.next_cursor}`);
      expect(end.body).toEqual({ data: [], next_cursor: res.body.next_cursor, has_more: false });
      return out;
    }
    expect(res.body.data).toHaveLength(limit);
    after = res.body.next_cursor;
  }
  throw new Error("more than 100 pages");
}

describe("GET /connector/v1/orders", () => {
  test("newest first by created_at; the same created_at ordered by id, descending; each order as GET /orders/{id} shows it", async () => {
    const s = shop();
    const now = t.clock.now();
    await s.sync([
      order("B-2", 100, { created_at: now - 5 * MIN }),
      order("A-1", 100, { created_at: now - MIN }),
      order("C-3", 100, { created_at: now - 10 * MIN }),
      order("T-b", 100, { created_at: now - 3 * MIN }),
      order("T-a", 100, { created_at: now - 3 * MIN }),
      order("T-c", 100, { created_at: now - 3 * MIN }),
    ]);
    const res = await s.list();
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(["A-1", "T-c", "T-b", "T-a", "B-2", "C-3"]);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toMatch(/^o[A-Za-z0-9_-]{118}$/);
    expect(res.body.data[0]).toEqual((await t.request("GET", "/connector/v1/orders/A-1", { headers: s.headers })).body);
  });

  test("status filters by the status an order reads now: a pending order past expires_at is expired, swept or not", async () => {
    const s = shop();
    const now = t.clock.now();
    await s.sync([
      order("P-1", 1000, { created_at: now - 4 * MIN }),
      order("P-EDGE", 1001, { created_at: now - 3 * MIN, expires_at: now + MIN }), // expires at now + 1 min exactly
      order("E-SWEPT", 1002, { created_at: now - 2 * HOUR, expires_at: now - HOUR }), // stored expired by the sync
      order("E-LATER", 1003, { created_at: now - 2 * MIN, expires_at: now + 30_000 }), // stored pending, expires in 30 s
      order("C-1", 1004, { created_at: now - MIN, status: "cancelled" }),
      order("M-1", 1005, { created_at: now - 5 * MIN }),
    ]);
    expect((await pay(t, s.scope, { amount: 1005 })).match).toEqual({ status: "matched", order_id: "M-1" });
    t.clock.advance(MIN); // now E-LATER reads expired (not swept: no serve here); P-EDGE is at its expires_at: still pending

    expect(ids(await s.list("?status=pending"))).toEqual(["P-EDGE", "P-1"]);
    expect(ids(await s.list("?status=expired"))).toEqual(["E-LATER", "E-SWEPT"]);
    expect(ids(await s.list("?status=cancelled"))).toEqual(["C-1"]);
    expect(ids(await s.list("?status=matched"))).toEqual(["M-1"]);
    expect((await s.list("?status=matched")).body.data[0]).toMatchObject({ status: "matched", match: { order_id: "M-1", amount: 1005 } });
    expect(ids(await s.list("?status=pending&status=expired"))).toEqual(["E-LATER", "P-EDGE", "P-1", "E-SWEPT"]);
    expect(ids(await s.list("?status=expired&status=cancelled&status=expired"))).toEqual(["C-1", "E-LATER", "E-SWEPT"]);
    expect(ids(await s.list())).toEqual(["C-1", "E-LATER", "P-EDGE", "P-1", "M-1", "E-SWEPT"]);
    const expired = await s.list("?status=expired");
    expect(expired.body.data.map((o: any) => o.status)).toEqual(["expired", "expired"]);

    t.clock.advance(1); // 1 ms past P-EDGE's expires_at
    expect(ids(await s.list("?status=pending"))).toEqual(["P-1"]);
    expect(ids(await s.list("?status=expired"))).toEqual(["E-LATER", "P-EDGE", "E-SWEPT"]);

    // once the sweep records the expiries, the lists read the same
    await t.writer.run("expireOrders", { now: t.clock.now() });
    expect(ids(await s.list("?status=expired"))).toEqual(["E-LATER", "P-EDGE", "E-SWEPT"]);
    expect(ids(await s.list("?status=pending"))).toEqual(["P-1"]);
  });

  test("pages follow one another without gaps or repeats, for every filter, ties on created_at included", async () => {
    const s = shop();
    const now = t.clock.now();
    const orders: OrderInput[] = [];
    for (let i = 0; i < 40; i++) {
      // four orders per created_at, so that pages end inside runs of equal created_at
      const created = now - Math.floor(i / 4) * MIN;
      const kind = i % 5;
      orders.push(
        order(`L-${String(i).padStart(2, "0")}`, 2000 + i, {
          created_at: created,
          ...(kind === 1 ? { status: "cancelled" } : {}),
          ...(kind === 2 ? { expires_at: created + 30_000 } : {}), // expired (stored pending) once the clock moves
          ...(kind === 3 ? { expires_at: created + 10 } : {}),
        }),
      );
    }
    await s.sync(orders);
    t.clock.advance(20_000);
    await t.writer.run("expireOrders", { now: t.clock.now() }); // the kind-3 orders created at `now` are swept, not the kind-2 ones
    t.clock.advance(40_000); // now the kind-2 orders created at `now` read expired too, stored pending
    const full = await s.list("?limit=500");
    expect(full.body.data).toHaveLength(40);
    const byStatus = (wanted: string[]) => full.body.data.filter((o: any) => wanted.includes(o.status)).map((o: any) => o.id);
    const expected = [...orders].sort((a, b) => b.created_at! - a.created_at! || (a.id < b.id ? 1 : -1)).map((o) => o.id);
    expect(ids(full)).toEqual(expected);
    for (const limit of [1, 3, 4, 7]) expect(await allPages(s, "", limit)).toEqual(expected);
    for (const wanted of [["pending"], ["expired"], ["cancelled"], ["pending", "expired"], ["expired", "cancelled"]]) {
      const query = wanted.map((w) => `&status=${w}`).join("");
      expect(byStatus(wanted).length).toBeGreaterThan(0);
      for (const limit of [1, 3]) expect(await allPages(s, query, limit)).toEqual(byStatus(wanted));
    }
  });

  test("a cursor keeps its place while newer orders arrive: they appear on the first page", async () => {
    const s = shop();
    const now = t.clock.now();
    await s.sync([order("K-1", 100, { created_at: now - 3 * MIN }), order("K-2", 100, { created_at: now - 2 * MIN }), order("K-3", 100, { created_at: now - MIN })]);
    const first = await s.list("?limit=2");
    expect(ids(first)).toEqual(["K-3", "K-2"]);
    await s.sync([order("K-4", 100)]);
    expect(ids(await s.list(`?limit=2&after=${first.body.next_cursor}`))).toEqual(["K-1"]);
    expect(ids(await s.list("?limit=2"))).toEqual(["K-4", "K-3"]);
  });

  test("limit: 1 to 500, default 100", async () => {
    const s = shop();
    const now = t.clock.now();
    await s.sync(Array.from({ length: 101 }, (_, i) => order(`N-${i}`, 100 + i, { created_at: now - i })));
    const page = await s.list();
    expect(page.body.data).toHaveLength(100);
    expect(page.body.has_more).toBe(true);
    expect(ids(await s.list(`?after=${page.body.next_cursor}`))).toEqual(["N-100"]);
    expect((await s.list("?limit=1")).body.data).toHaveLength(1);
    expect((await s.list("?limit=500")).body).toMatchObject({ has_more: false });
    expect((await s.list("?limit=500")).body.data).toHaveLength(101);
    expect((await s.list("?limit=101")).body).toMatchObject({ has_more: false }); // exactly full: nothing more
    for (const bad of ["0", "501", "-1", "1.5", "ten", ""]) {
      const res = await s.list(`?limit=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_request", errors: [{ field: "/limit" }] });
    }
  });

  test("an empty list: no data, and its cursor gives the list from the start", async () => {
    const s = shop();
    const empty = await s.list();
    expect(empty.body).toMatchObject({ data: [], has_more: false });
    await s.sync([order("F-1", 100)]);
    expect(ids(await s.list(`?after=${empty.body.next_cursor}`))).toEqual(["F-1"]);
  });

  test("a bad status is 400 invalid_request naming /status", async () => {
    const s = shop();
    for (const q of ["?status=paid", "?status=pending&status=paid", "?status=", "?status=PENDING"]) {
      const res = await s.list(q);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_request", errors: [{ field: "/status" }] });
    }
  });

  test("a cursor of another list, tenant or environment, or anything not ours, is 400 invalid_cursor", async () => {
    const a = shop();
    const now = t.clock.now();
    await a.sync([order("Z-1", 100, { created_at: now - MIN }), order("Z-2", 100)]);
    const mine = (await a.list("?limit=1")).body.next_cursor;
    expect(ids(await a.list(`?after=${mine}`))).toEqual(["Z-1"]);

    const b = shop();
    await b.sync([order("Z-1", 100, { created_at: now - MIN }), order("Z-2", 100)]);
    const otherTenant = (await b.list("?limit=1")).body.next_cursor;
    await sync(t, { ...a.scope, environment: "live" }, [order("Z-1", 100, { created_at: now - MIN }), order("Z-2", 100)]);
    const otherEnvironment = (await t.request("GET", "/connector/v1/orders?limit=1", { headers: bearer(a.ten.keys.live) })).body.next_cursor;
    expect(otherEnvironment).not.toBe(mine); // the same position in another environment is spelt otherwise
    const flipped = mine.slice(0, 40) + (mine[40] === "A" ? "B" : "A") + mine.slice(41);
    const cursors = cursorsOf(t.store);
    for (const bad of [
      otherTenant,
      otherEnvironment,
      flipped,
      mine.slice(0, -1),
      `${mine}A`,
      "",
      "garbage",
      cursors.encode("event", a.scope, 1),
      cursors.encode("match", a.scope, 1),
      "e" + mine.slice(1),
    ]) {
      const res = await a.list(`?after=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_cursor", errors: [{ field: "/after" }] });
    }
    // and an order cursor is no cursor of the events view
    const events = await t.request("GET", `/connector/v1/events?after=${mine}`, { headers: a.headers });
    expect(events.body.code).toBe("invalid_cursor");
  });

  test("another tenant's and the other environment's orders are not listed", async () => {
    const a = shop();
    const b = shop();
    await a.sync([order("ISO-A", 100)]);
    await b.sync([order("ISO-B", 100)]);
    await sync(t, { ...a.scope, environment: "live" }, [order("ISO-LIVE", 100)]);
    expect(ids(await a.list())).toEqual(["ISO-A"]);
    expect(ids(await b.list())).toEqual(["ISO-B"]);
    expect(ids(await t.request("GET", "/connector/v1/orders", { headers: bearer(a.ten.keys.live) }))).toEqual(["ISO-LIVE"]);
    expect((await t.request("GET", "/connector/v1/orders")).status).toBe(401);
  });

  test("GET /connector/v1/orders is no longer 405; other methods still are", async () => {
    const s = shop();
    const put = await t.request("PUT", "/connector/v1/orders", { headers: s.headers, body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "POST"]);
  });
});

describe("GET /connector/v1/events/{event_id}", () => {
  test("an ambiguous payment: its amount and window first, the closest in time first; then the other pending and expired orders, newest first", async () => {
    const s = shop();
    const now = t.clock.now();
    const occurred = now - 30 * MIN;
    await s.sync([
      // the payment's amount, its occurred_at inside their window
      order("W-FAR", 2500, { created_at: occurred - 2 * HOUR }),
      order("W-NEAR", 2500, { created_at: occurred - 5 * MIN }),
      order("W-AFTER", 2500, { created_at: occurred + EARLY }), // created 120 s after the payment: still its window
      order("W-EXPIRED", 2500, { created_at: occurred - HOUR, expires_at: occurred }), // expired, at occurred_at exactly
      order("W-EXPIRING", 2500, { created_at: occurred - 50 * MIN, expires_at: now + 1000 }), // pending at the payment, then expired (not swept)
      // the payment's amount, but its occurred_at is outside their window
      order("O-TOO-LATE", 2500, { created_at: occurred + EARLY + 1 }),
      order("O-EXPIRED-BEFORE", 2500, { created_at: occurred - HOUR, expires_at: occurred - 1 }),
      // other amounts
      order("O-OTHER", 9900, { created_at: now - 3 * MIN }),
      order("O-OLD-EXPIRED", 1200, { created_at: now - 3 * HOUR, expires_at: now - 2 * HOUR }),
      // never candidates
      order("X-CANCELLED", 2500, { created_at: occurred - MIN, status: "cancelled" }),
      order("X-MATCHED", 7777, { created_at: now - 2 * MIN }),
    ]);
    await pay(t, s.scope, { amount: 7777 });
    // W-FAR, W-NEAR, W-AFTER and W-EXPIRING are pending candidates at the moment of the payment: ambiguous
    const p = await pay(t, s.scope, { amount: 2500, occurredAt: occurred, deviceId: s.phone(), payerName: "Ana" });
    expect(p.match.status).toBe("ambiguous");
    t.clock.advance(2000);

    const res = await s.event(p.eventId);
    expect(res.status).toBe(200);
    expect(candidateIds(res)).toEqual([
      "W-AFTER", // 120 s from occurred_at
      "W-NEAR", // 5 min
      "W-EXPIRING", // 50 min
      "W-EXPIRED", // 1 h
      "W-FAR", // 2 h
      "O-OTHER",
      "O-TOO-LATE",
      "O-EXPIRED-BEFORE",
      "O-OLD-EXPIRED",
    ]);
    const { candidates, ...payment } = res.body;
    const view = (await t.request("GET", "/connector/v1/events?status=ambiguous", { headers: s.headers })).body.data[0];
    expect(payment).toEqual(view);
    expect(candidates.find((o: any) => o.id === "W-EXPIRING").status).toBe("expired");
    expect(candidates.find((o: any) => o.id === "W-EXPIRED").status).toBe("expired");
    expect(candidates.find((o: any) => o.id === "W-NEAR")).toEqual((await t.request("GET", "/connector/v1/orders/W-NEAR", { headers: s.headers })).body);

    // the same once the sweep has recorded W-EXPIRING's expiry
    await t.writer.run("expireOrders", { now: t.clock.now() });
    expect(candidateIds(await s.event(p.eventId))).toEqual(candidateIds(res));
  });

  test.each([
    ["stored pending, past expiry", false],
    ["recorded expired by the sweep", true],
  ])("the window's edges, created_at − 120 000 ≤ occurred_at ≤ expires_at, with orders %s", async (_name, swept) => {
    const s = shop();
    const t0 = t.clock.now();
    const occurred = t0 + 10 * MIN;
    await s.sync([
      order("IN-START-A", 4100, { created_at: occurred + EARLY }),
      order("IN-START-B", 4100, { created_at: occurred + EARLY }),
      order("OUT-START", 4100, { created_at: occurred + EARLY + 1 }),
      // the same start, on orders that expire soon after (expired by the time of the payment)
      order("IN-START-X", 4100, { created_at: occurred + EARLY, expires_at: occurred + EARLY + 1 }),
      order("OUT-START-X", 4100, { created_at: occurred + EARLY + 1, expires_at: occurred + EARLY + 2 }),
      order("IN-END", 4100, { created_at: t0 - 5 * MIN, expires_at: occurred }),
      order("OUT-END", 4100, { created_at: t0 - 6 * MIN, expires_at: occurred - 1 }),
    ]);
    t.clock.advance(20 * MIN); // IN-END, OUT-END and the -X ones read expired
    if (swept) await t.writer.run("expireOrders", { now: t.clock.now() });
    const p = await pay(t, s.scope, { amount: 4100, occurredAt: occurred, deviceId: s.phone() });
    expect(p.match.status).toBe("ambiguous"); // IN-START-A and IN-START-B
    const res = await s.event(p.eventId);
    // the first group by distance to occurred_at, then by id; the others newest first, then by id descending
    expect(candidateIds(res)).toEqual(["IN-START-A", "IN-START-B", "IN-START-X", "IN-END", "OUT-START-X", "OUT-START", "OUT-END"]);
    expect(res.body.candidates.map((o: any) => o.status)).toEqual(["pending", "pending", "expired", "expired", "expired", "pending", "expired"]);
  });

  test("candidates of an unmatched payment; a matched or duplicate payment has none", async () => {
    const s = shop();
    const now = t.clock.now();
    await s.sync([order("U-1", 3000, { created_at: now - MIN }), order("U-2", 3100, { created_at: now - 2 * MIN })]);
    const unmatched = await pay(t, s.scope, { amount: 5555, deviceId: s.phone() });
    expect(unmatched.match.status).toBe("unmatched");
    expect(candidateIds(await s.event(unmatched.eventId))).toEqual(["U-1", "U-2"]);

    const phoneA = s.phone();
    const matched = await pay(t, s.scope, { amount: 3000, deviceId: phoneA, reference: "OP-1", payerName: "Ana" });
    expect(matched.match.status).toBe("matched");
    const m = await s.event(matched.eventId);
    expect(m.body).toMatchObject({ match_status: "matched", order_id: "U-1", candidates: [] });
    const duplicate = await pay(t, s.scope, { amount: 3000, deviceId: s.phone(), reference: "OP-1", payerName: "Ana" });
    expect(duplicate.match.status).toBe("duplicate");
    expect((await s.event(duplicate.eventId)).body).toMatchObject({ match_status: "duplicate", duplicate_of: matched.eventId, candidates: [] });
    // the one left is no longer a candidate of the unmatched payment
    expect(candidateIds(await s.event(unmatched.eventId))).toEqual(["U-2"]);
  });

  test(`at most ${CANDIDATES_MAX} in all: every one of its amount and window, then the newest others`, async () => {
    const s = shop();
    const now = t.clock.now();
    const others = Array.from({ length: CANDIDATES_MAX + 5 }, (_, i) => order(`CAP-O-${String(i).padStart(2, "0")}`, 5000 + i, { created_at: now - HOUR + i * 1000 }));
    const same = Array.from({ length: 3 }, (_, i) => order(`CAP-S-${i}`, 4400, { created_at: now - 2 * HOUR - i * 1000 }));
    await s.sync([...others, ...same]);
    const p = await pay(t, s.scope, { amount: 4400, deviceId: s.phone() });
    expect(p.match.status).toBe("ambiguous");
    const res = await s.event(p.eventId);
    expect(res.body.candidates).toHaveLength(CANDIDATES_MAX);
    const newestOthers = others.map((o) => o.id).reverse().slice(0, CANDIDATES_MAX - 3);
    expect(candidateIds(res)).toEqual(["CAP-S-0", "CAP-S-1", "CAP-S-2", ...newestOthers]);

    // more of its amount than the cap: all of them, no others
    await s.sync(Array.from({ length: CANDIDATES_MAX }, (_, i) => order(`CAP-T-${i}`, 4400, { created_at: now - 3 * HOUR - i * 1000 })));
    const more = await s.event(p.eventId);
    expect(more.body.candidates).toHaveLength(CANDIDATES_MAX + 3);
    expect(candidateIds(more).every((id: string) => id.startsWith("CAP-S-") || id.startsWith("CAP-T-"))).toBe(true);
  });

  test(`at most ${SAME_AMOUNT_CANDIDATES_MAX} of its amount and window: the closest in time`, async () => {
    const s = shop();
    const now = t.clock.now();
    const same = Array.from({ length: SAME_AMOUNT_CANDIDATES_MAX + 1 }, (_, i) => order(`MANY-${String(i).padStart(3, "0")}`, 6600, { created_at: now - MIN - i * 1000 }));
    await s.sync(same.slice(0, 300));
    await s.sync(same.slice(300));
    const p = await pay(t, s.scope, { amount: 6600, deviceId: s.phone() });
    expect(p.match.status).toBe("ambiguous");
    const res = await s.event(p.eventId);
    expect(candidateIds(res)).toEqual(same.slice(0, SAME_AMOUNT_CANDIDATES_MAX).map((o) => o.id));
  });

  test("404 event_not_found for an unknown id, another tenant's event and the other environment's", async () => {
    const a = shop();
    const b = shop();
    const theirs = await pay(t, b.scope, { amount: 100, deviceId: b.phone() });
    const theirTest = await pay(t, b.scope, { amount: 100 }); // a test payment: device_id null
    const liveOfA = await pay(t, { ...a.scope, environment: "live" }, { amount: 100 });
    for (const id of ["no-such-event", theirs.eventId, theirTest.eventId, liveOfA.eventId]) {
      const res = await a.event(id);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "event_not_found", event_id: id });
    }
    expect((await b.event(theirs.eventId)).status).toBe(200);
    expect((await t.request("GET", `/connector/v1/events/${liveOfA.eventId}`, { headers: bearer(a.ten.keys.live) })).status).toBe(200);
  });

  test("two phones with the same event_id: device_id picks one, as in a manual match", async () => {
    const s = shop();
    const [x, y] = [s.phone(), s.phone()];
    await pay(t, s.scope, { amount: 321, eventId: "same-id", deviceId: x, source: "plin" });
    await pay(t, s.scope, { amount: 322, eventId: "same-id", deviceId: y });
    const unclear = await s.event("same-id");
    expect(unclear.status).toBe(400);
    expect(unclear.body).toMatchObject({ code: "invalid_request", errors: [{ field: "/device_id" }] });
    expect((await s.event("same-id", `?device_id=${y}`)).body).toMatchObject({ device_id: y, amount: 322 });
    expect((await s.event("same-id", `?device_id=${x}`)).body).toMatchObject({ device_id: x, amount: 321 });
    expect((await s.event("same-id", "?device_id=dev_nobody")).status).toBe(404);
    expect((await s.event("same-id", "?device_id=")).body).toMatchObject({ code: "invalid_request", errors: [{ field: "/device_id" }] });
  });
});
