// The one writer (src/store/writer.ts, contract §14): writes by name through app.handle as serve
// makes them, errors that cross the thread intact, every write handed over settled by close(), a
// thread that dies replaced by a new one, and the HTTP thread's connection refusing any write.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { DomainError } from "../src/errors";
import { isDatabaseBusy } from "../src/http/errors";
import { receiveError, sendError, startWriter, type Writer } from "../src/store/writer";
import { bodyHashOf } from "../src/payments/ingest";
import { parsePaymentEvent } from "../src/payments/model";
import type { StoreJob } from "../src/payments/store-event";
import { healthRoutes } from "../src/system/health";
import { activatePhone, paymentEvent, postEvent, type Phone } from "./support/device";
import { makeTestApp, type TestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

const storedRows = (deviceId: string) =>
  t.store.sqlite.query<{ event_id: string; match_status: string }, [string]>("SELECT event_id, match_status FROM events WHERE device_id = ?").all(deviceId);

/** Waits (at most 5 s) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
}

/** A payment event handed to `writer` as ingestPayment hands it over. */
const store = (writer: Writer, job: StoreJob) => writer.run("storeEvent", job);

/** A job as ingestPayment hands it over, for a phone of `t`. */
function jobFor(app: TestApp, phone: Phone, over: Record<string, unknown> = {}): StoreJob {
  const body = parsePaymentEvent(paymentEvent(app, over));
  return { scope: { tenantId: phone.tenantId, environment: phone.environment, deviceId: phone.deviceId }, body, hash: bodyHashOf(body), now: app.clock.now() };
}

describe("through app.handle, as serve runs it", () => {
  test("201 once stored; the same event again is the stored answer with Idempotent-Replayed: true", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const first = await postEvent(t, phone, ev);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ event_id: ev.event_id, status: "accepted", received_at: t.clock.now(), match: { status: "unmatched", order_id: null } });
    // The HTTP thread reads what the writer thread committed.
    expect(storedRows(phone.deviceId)).toEqual([{ event_id: ev.event_id, match_status: "unmatched" }]);
    const again = await postEvent(t, phone, ev);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  test("twenty copies at once: one stored", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const results = await Promise.all(Array.from({ length: 20 }, () => postEvent(t, phone, ev)));
    expect(results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    expect(results.every((r) => r.status === 201 || r.body.code === "idempotency_key_in_use")).toBe(true);
    expect(storedRows(phone.deviceId)).toHaveLength(1);
  });

  test("twenty copies at once of an event already stored: twenty replays", async () => {
    const phone = await activatePhone(t);
    const ev = paymentEvent(t);
    const first = await postEvent(t, phone, ev);
    expect(first.status).toBe(201);
    const results = await Promise.all(Array.from({ length: 20 }, () => postEvent(t, phone, ev)));
    expect(results.map((r) => [r.status, r.headers.get("idempotent-replayed")])).toEqual(Array.from({ length: 20 }, () => [201, "true"]));
    expect(results.every((r) => JSON.stringify(r.body) === JSON.stringify(first.body))).toBe(true);
  });

  test("a payment for a synced order is matched, and a second phone's report of it is a duplicate", async () => {
    const tenant = t.tenant();
    const a = await activatePhone(t, { tenantId: tenant.tenant_id });
    const b = await activatePhone(t, { tenantId: tenant.tenant_id, label: "Caja 2" });
    const headers = { authorization: `Bearer ${tenant.keys.live}` };
    const sync = await t.request("POST", "/connector/v1/orders", {
      headers,
      body: { orders: [{ id: "A-1", amount: 3140, currency: "PEN", customer_name: "Yanina Mansilla" }] },
    });
    expect(sync.status).toBe(200);
    const ev = paymentEvent(t, { amount: 3140, reference: undefined });
    const paid = await postEvent(t, a, ev);
    expect(paid.body.match).toEqual({ status: "matched", order_id: "A-1" });
    const dup = await postEvent(t, b, { ...ev, event_id: `${ev.event_id}-b` });
    expect(dup.body.match).toEqual({ status: "duplicate", order_id: null });
    const feed = await t.request("GET", "/connector/v1/matches", { headers });
    expect(feed.body.data.map((m: { order_id: string; event_id: string }) => [m.order_id, m.event_id])).toEqual([["A-1", ev.event_id]]);
  });

  test("a test payment of the connector goes through the thread too", async () => {
    const tenant = t.tenant();
    const res = await t.request("POST", "/connector/v1/test/payments", {
      headers: { authorization: `Bearer ${tenant.keys.test}`, "idempotency-key": "tp-1" },
      body: { kind: "payment.received", occurred_at: t.clock.now(), source: "plin", amount: 990, currency: "PEN" },
    });
    expect(res.status).toBe(201);
    expect(res.body.match.status).toBe("unmatched");
    const again = await t.request("POST", "/connector/v1/test/payments", {
      headers: { authorization: `Bearer ${tenant.keys.test}`, "idempotency-key": "tp-1" },
      body: { kind: "payment.received", occurred_at: t.clock.now(), source: "plin", amount: 990, currency: "PEN" },
    });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("errors cross the thread", () => {
  test("a DomainError keeps its code, status, detail and extra fields", () => {
    const sent = new DomainError("order_already_matched", "matched", { order_id: "A-1" });
    const back = receiveError(structuredClone(sendError(sent)));
    expect(back).toBeInstanceOf(DomainError);
    expect(back).toMatchObject({ code: "order_already_matched", status: 409, detail: "matched", extra: { order_id: "A-1" } });
  });

  test("any other error keeps its message, SQLite code and stack, and becomes a plain Error (a 500, or a 503 when busy)", () => {
    const back = receiveError(structuredClone(sendError(new TypeError("boom"))));
    expect(back).not.toBeInstanceOf(DomainError);
    expect(back.message).toBe("writer: boom");
    expect(isDatabaseBusy(back)).toBe(false);
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    const busyBack = receiveError(structuredClone(sendError(busy)));
    expect(busyBack.message).toBe("writer: SQLITE_BUSY: database is locked");
    expect(busyBack.stack).toContain("(writer thread) Error: database is locked");
    expect(isDatabaseBusy(busyBack)).toBe(true); // answered 503 with Retry-After (app.ts)
  });

  test("a write that fails in the thread fails alone: the others are stored", async () => {
    const phone = await activatePhone(t);
    const events = await startWriter(t.dataDir);
    try {
      const good = [jobFor(t, phone), jobFor(t, phone)];
      // Refused by the foreign key on events.tenant_id, inside the thread's transaction.
      const bad: StoreJob = { ...jobFor(t, phone), scope: { ...good[0]!.scope, tenantId: "ten_missing" } };
      const results = await Promise.allSettled([store(events, good[0]!), store(events, bad), store(events, good[1]!)]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(((results[1] as PromiseRejectedResult).reason as Error).message).toMatch(/^writer: .*FOREIGN KEY/);
      expect(storedRows(phone.deviceId).map((r) => r.event_id).sort()).toEqual(good.map((j) => j.body.event_id).sort());
    } finally {
      await events.close();
    }
  });
});

describe("lifecycle", () => {
  test("close() settles every write handed over before it, and refuses later ones", async () => {
    const phone = await activatePhone(t);
    const events = await startWriter(t.dataDir);
    const jobs = Array.from({ length: 200 }, () => jobFor(t, phone));
    const writes = jobs.map((j) => store(events, j));
    await events.close();
    const outcomes = await Promise.all(writes);
    expect(outcomes.every((o) => "receipt" in o)).toBe(true);
    expect(storedRows(phone.deviceId)).toHaveLength(200);
    await expect(store(events, jobFor(t, phone))).rejects.toThrow("writer closed");
  });

  test("a thread that dies fails what it held, is reported, and a new thread takes the next writes", async () => {
    const phone = await activatePhone(t);
    const failures: string[] = [];
    const events: Writer = await startWriter(t.dataDir, { onFailure: (e) => failures.push(e.message) });
    try {
      expect("receipt" in (await store(events, jobFor(t, phone)))).toBe(true);
      (events as unknown as { worker: Worker }).worker.terminate();
      await until(() => failures.length > 0);
      expect(failures).toEqual(["writer thread stopped"]);
      const next = await store(events, jobFor(t, phone));
      expect("receipt" in next).toBe(true);
      expect(storedRows(phone.deviceId)).toHaveLength(2);
    } finally {
      await events.close();
    }
  });

  test("a data dir the thread cannot open: start fails with the reason", async () => {
    await expect(startWriter("/proc/no-such-dir/data")).rejects.toThrow(/ENOENT.*mkdir '\/proc\/no-such-dir\/data'/);
  });

  test("a new thread that cannot open the database is retried until one can; meanwhile writes fail and /healthz is 503", async () => {
    const app = await makeTestApp();
    const phone = await activatePhone(app);
    const failures: string[] = [];
    const events = await startWriter(app.dataDir, { onFailure: (e, what) => failures.push(`${what}: ${e.message}`), restartDelayMs: 20 });
    const health = healthRoutes(app.store, events);
    const healthStatus = async () => (await health.handle(new Request("http://localhost/healthz"))).status;
    const moved = `${app.dataDir}-moved`;
    try {
      expect(await healthStatus()).toBe(200);
      // The data dir's path now names a file: a new thread cannot open the database there.
      renameSync(app.dataDir, moved);
      writeFileSync(app.dataDir, "not a directory");
      (events as unknown as { worker: Worker }).worker.terminate();
      await until(() => failures.filter((f) => f.startsWith("restart failed")).length >= 2);
      expect(failures[0]).toBe("stopped: writer thread stopped");
      expect(failures[1]).toMatch(/^restart failed: EEXIST/);
      expect(events.running()).toBe(false);
      expect(await healthStatus()).toBe(503);
      await expect(store(events, jobFor(app, phone))).rejects.toThrow("writer thread is not running");
      // Put the data dir back: a later retry opens it, and writes work again.
      rmSync(app.dataDir);
      renameSync(moved, app.dataDir);
      await until(() => events.running());
      expect(await healthStatus()).toBe(200);
      expect("receipt" in (await store(events, jobFor(app, phone)))).toBe(true);
    } finally {
      await events.close();
      if (existsSync(moved)) {
        rmSync(app.dataDir, { force: true });
        renameSync(moved, app.dataDir);
      }
      await app.close();
    }
  });

  test("close() twice waits for the same shutdown", async () => {
    const phone = await activatePhone(t);
    const events = await startWriter(t.dataDir);
    const write = store(events, jobFor(t, phone));
    const [a, b] = [events.close(), events.close()];
    expect(a).toBe(b);
    await b;
    expect("receipt" in (await write)).toBe(true);
    expect(events.running()).toBe(false);
  });
});

describe("one writer (contract §14)", () => {
  test("the app's own connection refuses writes: every write the routes make went through the writer", async () => {
    // Every HTTP test in this suite runs on such a connection, so a route that wrote through it
    // would fail there with this error.
    expect(() => t.reader.sqlite.run("DELETE FROM tenants")).toThrow(/readonly/);
    expect(t.reader.sqlite.query<{ query_only: number }, []>("PRAGMA query_only").get()).toEqual({ query_only: 1 });
  });

  test("a write that fails after writing is rolled back to its savepoint; the others of its batch commit", async () => {
    const { CommitQueue } = await import("../src/store/commit-queue");
    const app = await makeTestApp();
    const tenantId = app.tenant().tenant_id;
    const queue = new CommitQueue(app.store);
    const insert = (id: string) =>
      app.store.sqlite.run("INSERT INTO news (id, tenant_id, level, title, body, published_at) VALUES (?, ?, 'info', 't', 'b', 0)", [id, tenantId]);
    try {
      const results = await Promise.allSettled([
        queue.submit(() => insert("kept-1")),
        queue.submit(() => {
          insert("half-done");
          throw new Error("fails after a write");
        }),
        queue.submit(() => insert("kept-2")),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const ids = app.reader.sqlite.query<{ id: string }, []>("SELECT id FROM news ORDER BY seq").all().map((r) => r.id);
      expect(ids).toEqual(["kept-1", "kept-2"]);
    } finally {
      await app.close();
    }
  });

  test("a batch over its time budget commits what it has and carries the rest into the next transaction", async () => {
    const { CommitQueue, TRANSACTION_BUDGET_MS } = await import("../src/store/commit-queue");
    const app = await makeTestApp();
    const tenantId = app.tenant().tenant_id;
    const queue = new CommitQueue(app.store);
    // What another connection sees: only committed rows.
    const committed = () => app.reader.sqlite.query<{ id: string }, []>("SELECT id FROM news ORDER BY seq").all().map((r) => r.id);
    const seenBefore: string[][] = [];
    const slow = (id: string) =>
      queue.submit(() => {
        seenBefore.push(committed());
        app.store.sqlite.run("INSERT INTO news (id, tenant_id, level, title, body, published_at) VALUES (?, ?, 'info', 't', 'b', 0)", [id, tenantId]);
        const until = performance.now() + TRANSACTION_BUDGET_MS + 5;
        while (performance.now() < until); // longer than the whole budget
      });
    try {
      await Promise.all([slow("n1"), slow("n2"), slow("n3")]);
      // Submitted together, yet each began after the one before had committed.
      expect(seenBefore).toEqual([[], ["n1"], ["n1", "n2"]]);
    } finally {
      await app.close();
    }
  });
});
