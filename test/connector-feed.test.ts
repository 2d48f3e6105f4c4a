// contract §11: the matches feed (commit order, opaque cursors, resume after the last
// acknowledgement, at least once) and its acknowledgement (monotonic, idempotent).
import { afterAll, describe, expect, test } from "bun:test";
import { cursorsOf, type CursorKind } from "../src/connector/cursor";
import { makeTestApp } from "./support/harness";
import { bearer, order, pay, sync } from "./support/connector";

const t = await makeTestApp();
afterAll(() => t.close());

type TestScope = { tenantId: string; environment: "live" | "test" };
/** A cursor as this box makes it for `scope` (the box's own key, from the database). */
const cursor = (kind: CursorKind, scope: TestScope, seq: number) => cursorsOf(t.store).encode(kind, scope, seq);

async function shopWithMatches(n: number) {
  const ten = t.tenant();
  const scope = { tenantId: ten.tenant_id, environment: "test" as const };
  const headers = bearer(ten.keys.test);
  await sync(t, scope, Array.from({ length: n }, (_, i) => order(`F-${i}`, 1000 + i)));
  const eventIds: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    // paid in reverse order of creation: the feed follows the payments (commit order)
    const p = await pay(t, scope, { amount: 1000 + i });
    expect(p.match.status).toBe("matched");
    eventIds.push(p.eventId);
  }
  return {
    headers,
    scope,
    eventIds,
    feed: (query = "") => t.request("GET", `/connector/v1/matches${query}`, { headers }),
    ack: (through: unknown) => t.request("POST", "/connector/v1/matches/ack", { headers, body: { through } }),
  };
}

test("matches come in commit order, paged by opaque cursors", async () => {
  const s = await shopWithMatches(5);
  const all = await s.feed();
  expect(all.status).toBe(200);
  expect(all.body.data.map((m: any) => m.event_id)).toEqual(s.eventIds);
  expect(all.body.has_more).toBe(false);
  expect(all.body.next_cursor).toBe(all.body.data[4].cursor);
  expect(all.body.data[0]).toEqual({
    id: expect.stringMatching(/^mat_/),
    cursor: expect.any(String),
    order_id: "F-4",
    event_id: s.eventIds[0],
    device_id: null,
    amount: 1004,
    currency: "PEN",
    source: "yape",
    payer_name: null,
    security_code: null,
    reference: null,
    occurred_at: t.clock.now(),
    matched_at: t.clock.now(),
    method: "auto",
  });

  const p1 = await s.feed("?limit=2");
  expect(p1.body.data.map((m: any) => m.order_id)).toEqual(["F-4", "F-3"]);
  expect(p1.body.has_more).toBe(true);
  const p2 = await s.feed(`?limit=2&after=${p1.body.next_cursor}`);
  expect(p2.body.data.map((m: any) => m.order_id)).toEqual(["F-2", "F-1"]);
  const p3 = await s.feed(`?limit=2&after=${p2.body.next_cursor}`);
  expect(p3.body.data.map((m: any) => m.order_id)).toEqual(["F-0"]);
  expect(p3.body.has_more).toBe(false);
  const p4 = await s.feed(`?after=${p3.body.next_cursor}`);
  expect(p4.body).toEqual({ data: [], next_cursor: p3.body.next_cursor, has_more: false });
});

test("poll, crash before acknowledging, poll again: the same matches; after the ack, only new ones", async () => {
  const s = await shopWithMatches(3);
  const first = await s.feed();
  const again = await s.feed(); // the connector crashed: nothing was acknowledged
  expect(again.body).toEqual(first.body);

  const ack = await s.ack(first.body.data[1].cursor);
  expect(ack.status).toBe(200);
  expect(ack.body).toEqual({ acknowledged_through: first.body.data[1].cursor });
  const resumed = await s.feed();
  expect(resumed.body.data.map((m: any) => m.id)).toEqual([first.body.data[2].id]);

  // acknowledging is idempotent and monotonic
  expect((await s.ack(first.body.data[1].cursor)).body).toEqual({ acknowledged_through: first.body.data[1].cursor });
  const older = await s.ack(first.body.data[0].cursor);
  expect(older.status).toBe(200);
  expect(older.body).toEqual({ acknowledged_through: first.body.data[1].cursor });
  expect((await s.feed()).body.data).toHaveLength(1);

  await s.ack(first.body.next_cursor);
  expect((await s.feed()).body).toEqual({ data: [], next_cursor: first.body.next_cursor, has_more: false });
  // `after` still reads from anywhere
  expect((await s.feed(`?after=${cursor("match", s.scope, 0)}`)).body.data.length).toBeGreaterThanOrEqual(3);
});

test("a new tenant's feed starts from the beginning, with a cursor that can be acknowledged", async () => {
  const ten = t.tenant();
  const res = await t.request("GET", "/connector/v1/matches", { headers: bearer(ten.keys.live) });
  expect(res.body).toEqual({ data: [], next_cursor: cursor("match", { tenantId: ten.tenant_id, environment: "live" }, 0), has_more: false });
  const ack = await t.request("POST", "/connector/v1/matches/ack", { headers: bearer(ten.keys.live), body: { through: res.body.next_cursor } });
  expect(ack.status).toBe(200);
});

describe("bad cursors and limits", () => {
  const cases: [string, string | ((scope: TestScope) => string), string, string][] = [
    ["garbage", "?after=hello", "invalid_cursor", "/after"],
    ["an events-view cursor", (scope) => `?after=${cursor("event", scope, 1)}`, "invalid_cursor", "/after"],
    ["a cursor ahead of the feed", (scope) => `?after=${cursor("match", scope, 10_000_000)}`, "invalid_cursor", "/after"],
    ["a non-canonical spelling", (scope) => `?after=${cursor("match", scope, 1)}=`, "invalid_cursor", "/after"],
    ["an empty cursor", "?after=", "invalid_cursor", "/after"],
    ["a cursor longer than 64 characters", `?after=${"A".repeat(65)}`, "invalid_cursor", "/after"],
    ["a very long cursor", `?after=${"x".repeat(2000)}`, "invalid_cursor", "/after"],
    ["limit 0", "?limit=0", "invalid_request", "/limit"],
    ["limit 501", "?limit=501", "invalid_request", "/limit"],
    ["limit not a number", "?limit=ten", "invalid_request", "/limit"],
    ["limit negative", "?limit=-1", "invalid_request", "/limit"],
  ];
  test.each(cases)("feed: %s", async (_n, query, code, field) => {
    const ten = t.tenant();
    const q = typeof query === "string" ? query : query({ tenantId: ten.tenant_id, environment: "test" });
    const res = await t.request("GET", `/connector/v1/matches${q}`, { headers: bearer(ten.keys.test) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.errors[0].field).toBe(field);
  });

  const ackCases: [string, unknown, string][] = [
    ["garbage", "nope", "invalid_cursor"],
    ["ahead of the feed", (scope: TestScope) => cursor("match", scope, 10_000_000), "invalid_cursor"],
    ["not a string", 5, "invalid_request"],
    ["missing", undefined, "invalid_request"],
  ];
  test.each(ackCases)("ack: %s", async (_n, through, code) => {
    const ten = t.tenant();
    const value = typeof through === "function" ? through({ tenantId: ten.tenant_id, environment: "test" }) : through;
    const res = await t.request("POST", "/connector/v1/matches/ack", { headers: bearer(ten.keys.test), body: value === undefined ? {} : { through: value } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });

  test("limits 1 and 500 are accepted", async () => {
    const ten = t.tenant();
    for (const limit of [1, 500]) expect((await t.request("GET", `/connector/v1/matches?limit=${limit}`, { headers: bearer(ten.keys.test) })).status).toBe(200);
  });
});

describe("cursors belong to their tenant and environment (contract §20)", () => {
  /** A shop whose test environment has one match, and its first feed page. */
  async function shopWithOneMatch() {
    const ten = t.tenant();
    const scope = { tenantId: ten.tenant_id, environment: "test" as const };
    await sync(t, scope, [order("X-1", 5100)]);
    expect((await pay(t, scope, { amount: 5100 })).match.status).toBe("matched");
    const headers = bearer(ten.keys.test);
    const page = (await t.request("GET", "/connector/v1/matches", { headers })).body;
    expect(page.data).toHaveLength(1);
    return { ten, scope, headers, page };
  }

  test("acknowledging another shop's newer cursor is 400 invalid_cursor, and this shop's match is still delivered", async () => {
    const a = await shopWithOneMatch();
    const b = await shopWithOneMatch();
    const ack = await t.request("POST", "/connector/v1/matches/ack", { headers: a.headers, body: { through: b.page.next_cursor } });
    expect(ack.status).toBe(400);
    expect(ack.body.code).toBe("invalid_cursor");
    expect(ack.body.errors[0].field).toBe("/through");
    const still = await t.request("GET", "/connector/v1/matches", { headers: a.headers });
    expect(still.body.data.map((m: { id: string }) => m.id)).toEqual(a.page.data.map((m: { id: string }) => m.id));
  });

  test("another shop's cursor, or this shop's from the other environment, is 400 invalid_cursor on both feeds", async () => {
    const a = await shopWithOneMatch();
    const b = await shopWithOneMatch();
    const liveOfA = cursor("match", { tenantId: a.ten.tenant_id, environment: "live" }, 0);
    for (const after of [b.page.next_cursor, b.page.data[0].cursor, liveOfA]) {
      const feed = await t.request("GET", `/connector/v1/matches?after=${after}`, { headers: a.headers });
      expect([feed.status, feed.body.code]).toEqual([400, "invalid_cursor"]);
    }
    const bEvents = (await t.request("GET", "/connector/v1/events", { headers: b.headers })).body.next_cursor;
    const aEvents = await t.request("GET", "/connector/v1/events", { headers: a.headers });
    expect(aEvents.status).toBe(200);
    const foreign = await t.request("GET", `/connector/v1/events?after=${bEvents}`, { headers: a.headers });
    expect([foreign.status, foreign.body.code]).toEqual([400, "invalid_cursor"]);
    const own = await t.request("GET", `/connector/v1/events?after=${aEvents.body.next_cursor}`, { headers: a.headers });
    expect(own.status).toBe(200);
  });

  test("a cursor says nothing of other shops: this shop's position reads the same however many matches others make", async () => {
    const a = await shopWithOneMatch();
    const before = a.page.next_cursor;
    for (let i = 0; i < 3; i++) await shopWithOneMatch(); // other shops' matches move the global sequence
    const after = (await t.request("GET", "/connector/v1/matches", { headers: a.headers })).body.next_cursor;
    expect(after).toBe(before);
    // and the same position of two shops is spelled differently
    const b = await shopWithOneMatch();
    expect(cursor("match", a.scope, 1)).not.toBe(cursor("match", b.scope, 1));
    // one encrypted block, not the position as text: only the box's key reads it
    expect(before).toMatch(/^m[A-Za-z0-9_-]{22}$/);
    const seq = t.store.sqlite.query<{ seq: number }, [string]>("SELECT seq FROM matches WHERE id = ?").get(a.page.data[0].id)!.seq;
    expect(cursorsOf(t.store).parse("match", a.scope, before)).toBe(seq);
    expect(Buffer.from(before.slice(1), "base64url").readBigUInt64BE(0)).not.toBe(BigInt(seq));
  });
});

test("a cursor one past the newest match is refused on the ack and the feed: the feed would skip the next match", async () => {
  const s = await shopWithMatches(1);
  const newest = t.store.sqlite.query<{ s: number }, []>("SELECT max(seq) AS s FROM matches").get()!.s;
  const atNewest = cursor("match", s.scope, newest);
  const onePast = cursor("match", s.scope, newest + 1);
  expect((await s.ack(onePast)).body.code).toBe("invalid_cursor");
  expect((await s.feed(`?after=${onePast}`)).body.code).toBe("invalid_cursor");
  expect((await s.ack(atNewest)).status).toBe(200);
  // the next match is delivered
  await sync(t, s.scope, [order("NEXT-1", 7777)]);
  await pay(t, s.scope, { amount: 7777 });
  expect((await s.feed()).body.data.map((m: { order_id: string }) => m.order_id)).toEqual(["NEXT-1"]);
});
