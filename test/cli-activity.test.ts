// serve's activity lines (issue 15) over a real store: payments through the real ingestion path and
// writer, orders synced, phones activated and heartbeating through app.handle, licenses changed by
// the service, time moved with the manual clock.
import { afterEach, describe, expect, test } from "bun:test";
import { ACTIVITY_SQL, activityMode, activityReporter, activityWanted, startActivity, type ActivityReporter } from "../src/cli/activity";
import { UsageError } from "../src/cli/framework";
import { ONLINE_WINDOW_MS } from "../src/device/model";
import type { Lang } from "../src/i18n";
import { clockTime, dateAndTime } from "../src/i18n/format";
import { setLicense } from "../src/tenants/service";
import type { Environment } from "../src/store/schema";
import { bearer, order, pay, sync, type Scope } from "./support/connector";
import { activatePhone } from "./support/device";
import { makeTestApp, type TestApp } from "./support/harness";

const open: TestApp[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** A fresh box with one shop ("Bodega Rosa"). */
async function box(environment: Environment = "live") {
  const t = await makeTestApp();
  open.push(t);
  const shop = t.tenant();
  const scope: Scope = { tenantId: shop.tenant_id, environment };
  return { t, shop, scope };
}

/** A reporter on the app's own read-only connection, as serve's. Starts from the database as it is. */
function watch(t: TestApp, lang: Lang = "es", maxLines?: number): ActivityReporter & { written: string[] } {
  const written: string[] = [];
  const r = activityReporter({ store: t.reader, clock: t.clock, lang, write: (l) => written.push(l), maxLines });
  return Object.assign(r, { written });
}

const hhmm = (ms: number, lang: Lang = "es") => clockTime(ms, lang);

describe("payments", () => {
  test("a matched payment: time, amount, payer, wallet and order, in Spanish and in English", async () => {
    const { t, scope } = await box();
    const es = watch(t, "es");
    const en = watch(t, "en");
    await sync(t, scope, [order("A-1042", 2500)]);
    const paid = t.clock.now() - 5_000;
    const p = await pay(t, scope, { amount: 2500, payerName: "Yanina Man*", source: "yape", occurredAt: paid });
    expect(p.match.status).toBe("matched");
    expect(es.tick()).toEqual([`${hhmm(paid)}  Pago S/ 25.00 de Yanina Man* (Yape) → pedido A-1042`]);
    expect(en.tick()).toEqual([`${hhmm(paid, "en")}  Payment S/ 25.00 from Yanina Man* (Yape) → order A-1042`]);
    expect(es.written).toHaveLength(1); // what tick returns is what it wrote
    expect(es.tick()).toEqual([]); // printed once
  });

  test("unmatched, ambiguous and duplicate outcomes; a payment without a payer's name", async () => {
    const { t, scope } = await box();
    const es = watch(t, "es");
    const en = watch(t, "en");
    await sync(t, scope, [order("B-1", 4000), order("B-2", 4000)]);
    const at = t.clock.now() - 1_000;
    await pay(t, scope, { amount: 1234, payerName: "Ana Q*", source: "plin", occurredAt: at });
    await pay(t, scope, { amount: 4000, payerName: "Luis P*", occurredAt: at });
    const first = await pay(t, scope, { amount: 700, payerName: "Rosa T*", securityCode: "111", occurredAt: at, deviceId: "dev_a" });
    const copy = await pay(t, scope, { amount: 700, payerName: "Rosa T*", securityCode: "111", occurredAt: at, deviceId: "dev_b" });
    expect([first.match.status, copy.match.status]).toEqual(["unmatched", "duplicate"]);
    await pay(t, scope, { amount: 990, source: "bcp", occurredAt: at });
    expect(es.tick()).toEqual([
      `${hhmm(at)}  Pago S/ 12.34 de Ana Q* (Plin) → sin pedido (espera a que lo asignes)`,
      `${hhmm(at)}  Pago S/ 40.00 de Luis P* (Yape) → ambiguo (2 pedidos; espera a que lo asignes)`,
      `${hhmm(at)}  Pago S/ 7.00 de Rosa T* (Yape) → sin pedido (espera a que lo asignes)`,
      `${hhmm(at)}  Pago S/ 7.00 de Rosa T* (Yape) → duplicado (otro teléfono ya lo envió)`,
      `${hhmm(at)}  Pago S/ 9.90 (BCP) → sin pedido (espera a que lo asignes)`,
    ]);
    expect(en.tick().map((l) => l.slice(hhmm(at, "en").length + 2))).toEqual([
      "Payment S/ 12.34 from Ana Q* (Plin) → no order (waiting for you to assign it)",
      "Payment S/ 40.00 from Luis P* (Yape) → ambiguous (2 orders; waiting for you to assign it)",
      "Payment S/ 7.00 from Rosa T* (Yape) → no order (waiting for you to assign it)",
      "Payment S/ 7.00 from Rosa T* (Yape) → duplicate (another phone already sent it)",
      "Payment S/ 9.90 (BCP) → no order (waiting for you to assign it)",
    ]);
  });

  test("a test payment (the connector's helper, no phone) is marked", async () => {
    const { t, shop } = await box();
    const es = watch(t, "es");
    const en = watch(t, "en");
    const res = await t.request("POST", "/connector/v1/test/payments", {
      headers: bearer(shop.keys.test),
      body: { kind: "payment.received", occurred_at: t.clock.now(), source: "plin", amount: 1500, currency: "PEN", payer_name: "Test P*" },
    });
    expect(res.status).toBe(201);
    expect(es.tick()).toEqual([`${hhmm(t.clock.now())}  [prueba] Pago S/ 15.00 de Test P* (Plin) → sin pedido (espera a que lo asignes)`]);
    expect(en.tick()).toEqual([`${hhmm(t.clock.now(), "en")}  [test] Payment S/ 15.00 from Test P* (Plin) → no order (waiting for you to assign it)`]);
  });

  test("nothing stored before start is printed; what comes after is, once", async () => {
    const { t, scope } = await box();
    await sync(t, scope, [order("OLD-1", 2500)]);
    await pay(t, scope, { amount: 2500, payerName: "Old P*" });
    await pay(t, scope, { amount: 3100 });
    const r = watch(t);
    expect(r.tick()).toEqual([]);
    await pay(t, scope, { amount: 4200, payerName: "New P*" });
    const lines = r.tick();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("S/ 42.00 de New P*");
    expect(r.tick()).toEqual([]);
  });

  test("a payment that happened on an earlier day says the day (a phone sends what it kept offline)", async () => {
    const { t, scope } = await box();
    const r = watch(t);
    const yesterday = t.clock.now() - 30 * 3600_000;
    await pay(t, scope, { amount: 2500, occurredAt: yesterday });
    expect(r.tick()[0]).toStartWith(`${dateAndTime(yesterday, "es")}  Pago S/ 25.00`);
  });

  test("at most 20 payment lines a tick, then how many more; the next tick starts after them", async () => {
    const { t, scope } = await box();
    const r = watch(t);
    for (let i = 1; i <= 23; i++) await pay(t, scope, { amount: 100 * i });
    const lines = r.tick();
    expect(lines).toHaveLength(21);
    expect(lines[0]).toContain("S/ 1.00");
    expect(lines[19]).toContain("S/ 20.00");
    expect(lines[20]).toBe("…  y 3 pagos más (míralos en la consola, en Pagos)");
    expect(r.tick()).toEqual([]);
    await pay(t, scope, { amount: 9999 });
    expect(r.tick()).toEqual([expect.stringContaining("S/ 99.99")]);
    // a smaller bound, as given
    const small = watch(t, "en", 2);
    for (let i = 1; i <= 3; i++) await pay(t, scope, { amount: 5000 + i });
    expect(small.tick().slice(2)).toEqual(["…  and 1 more payments (see them in the console, under Payments)"]);
  });

  test("a waiting payment matched later: by an order that arrived, or by a person; a payment stored matched is not told twice", async () => {
    const { t, shop, scope } = await box();
    const r = watch(t);
    const waiting = await pay(t, scope, { amount: 2500, payerName: "Yanina Man*" });
    const ambiguous = await (async () => {
      await sync(t, scope, [order("H-1", 3000), order("H-2", 3000)]);
      return pay(t, scope, { amount: 3000, payerName: "Carlos R*" });
    })();
    expect([waiting.match.status, ambiguous.match.status]).toEqual(["unmatched", "ambiguous"]);
    expect(r.tick()).toHaveLength(2);

    await sync(t, scope, [order("A-1042", 2500)]); // re-evaluation matches the waiting payment
    t.clock.advance(60_000);
    const byHand = await t.request("POST", "/connector/v1/matches", { headers: bearer(shop.keys.live), body: { order_id: "H-2", event_id: ambiguous.eventId } });
    expect(byHand.status).toBe(201);
    const matchedAt = t.clock.now();
    const lines = r.tick();
    expect(lines).toEqual([
      `${hhmm(matchedAt - 60_000)}  Pago S/ 25.00 de Yanina Man* (Yape) que esperaba → pedido A-1042`,
      `${hhmm(matchedAt)}  Pago S/ 30.00 de Carlos R* (Yape) asignado a mano → pedido H-2`,
    ]);
    await sync(t, scope, [order("N-1", 5100)]);
    await pay(t, scope, { amount: 5100 });
    expect(r.tick()).toEqual([expect.stringMatching(/Pago S\/ 51\.00 \(Yape\) → pedido N-1$/)]);
  });

  test("matches are bounded too, and the matches of payments told in the same tick are not counted as more", async () => {
    const { t, scope } = await box();
    const r = watch(t);
    const amounts = Array.from({ length: 22 }, (_, i) => 1000 + i);
    await sync(t, scope, amounts.map((a) => order(`P-${a}`, a)));
    for (const a of amounts) await pay(t, scope, { amount: a });
    const paid = r.tick();
    expect(paid).toHaveLength(21); // 20 + "… y 2 pagos más"; no line about assignments
    expect(paid[20]).toStartWith("…  y 2 pagos más");

    const later = amounts.map((a) => a + 5000);
    for (const a of later) await pay(t, scope, { amount: a });
    expect(r.tick()).toHaveLength(21);
    await sync(t, scope, later.map((a) => order(`L-${a}`, a)));
    const matched = r.tick();
    expect(matched).toHaveLength(21);
    expect(matched[0]).toContain("que esperaba → pedido L-6000");
    expect(matched[20]).toBe("…  y 2 asignaciones más");
    expect(r.tick()).toEqual([]);
  });

  test("a payment waiting from before start, matched now, is told", async () => {
    const { t, scope } = await box();
    await pay(t, scope, { amount: 1800, payerName: "Old P*" });
    const r = watch(t, "en");
    await sync(t, scope, [order("LATE-1", 1800)]);
    expect(r.tick()).toEqual([expect.stringMatching(/ {2}Payment S\/ 18\.00 from Old P\* \(Yape\) that was waiting → order LATE-1$/)]);
  });

  test("on a box with several shops, each line says which", async () => {
    const { t, scope } = await box();
    const other = t.tenant("Bodega Luz");
    const r = watch(t);
    await pay(t, { tenantId: other.tenant_id, environment: "live" }, { amount: 500 });
    await pay(t, scope, { amount: 600 });
    expect(r.tick().map((l) => l.split("  ")[1])).toEqual([
      "Bodega Luz · Pago S/ 5.00 (Yape) → sin pedido (espera a que lo asignes)",
      "Bodega Rosa · Pago S/ 6.00 (Yape) → sin pedido (espera a que lo asignes)",
    ]);
  });
});

describe("phones", () => {
  test("quiet 3 minutes after its last heartbeat, back after the next one: one line each", async () => {
    const { t, shop } = await box();
    const phone = await activatePhone(t, { tenantId: shop.tenant_id, label: "Caja 1" });
    expect((await phone.client.heartbeat()).status).toBe(200);
    const beat = t.clock.now();
    const es = watch(t, "es");
    const en = watch(t, "en");
    expect(es.tick()).toEqual([]); // online at start: the baseline, not news

    t.clock.advance(ONLINE_WINDOW_MS); // exactly 3 min: still online
    expect(es.tick()).toEqual([]);
    t.clock.advance(1);
    expect(es.tick()).toEqual([
      `${hhmm(t.clock.now())}  El teléfono «Caja 1» dejó de avisar (último aviso: ${hhmm(beat)}): sus pagos no llegan. Revisa que tenga batería, internet y la app abierta.`,
    ]);
    expect(en.tick()).toEqual([
      `${hhmm(t.clock.now(), "en")}  The phone “Caja 1” stopped checking in (last time: ${hhmm(beat, "en")}): its payments are not arriving. Check that it has battery, internet and the app open.`,
    ]);
    t.clock.advance(10 * 60_000);
    expect(es.tick()).toEqual([]);

    expect((await phone.client.heartbeat()).status).toBe(200);
    expect(es.tick()).toEqual([`${hhmm(t.clock.now())}  El teléfono «Caja 1» volvió a avisar: sus pagos llegan de nuevo.`]);
    expect(en.tick()).toEqual([`${hhmm(t.clock.now(), "en")}  The phone “Caja 1” is checking in again: its payments arrive again.`]);
    expect(es.tick()).toEqual([]);
  });

  test("a phone quiet at start says nothing until it comes back; a phone paired after start, or never online, says it is connected", async () => {
    const { t, shop } = await box();
    const old = await activatePhone(t, { tenantId: shop.tenant_id, label: "Caja 1" });
    await old.client.heartbeat();
    t.clock.advance(ONLINE_WINDOW_MS + 1);
    const unused = await activatePhone(t, { tenantId: shop.tenant_id, label: "Caja 3" }); // paired before start, no heartbeat yet
    const r = watch(t);
    expect(r.tick()).toEqual([]);
    await unused.client.heartbeat();
    expect(r.tick()).toEqual([`${hhmm(t.clock.now())}  El teléfono «Caja 3» está conectado: sus pagos llegan aquí.`]);

    const fresh = await activatePhone(t, { tenantId: shop.tenant_id, label: "Caja 2", environment: "test" });
    expect(r.tick()).toEqual([]); // paired, not checked in yet
    await fresh.client.heartbeat();
    await old.client.heartbeat();
    expect(r.tick()).toEqual([
      `${hhmm(t.clock.now())}  El teléfono «Caja 1» volvió a avisar: sus pagos llegan de nuevo.`,
      `${hhmm(t.clock.now())}  [prueba] El teléfono «Caja 2» está conectado: sus pagos llegan aquí.`,
    ]);
  });
});

describe("licenses", () => {
  test("suspended by hand, then active again: one line each, saying what happens to the phones' payments", async () => {
    const { t, shop } = await box();
    const es = watch(t, "es");
    const en = watch(t, "en");
    setLicense(t.store.db, t.clock, shop.tenant_id, { status: "suspended" });
    expect(es.tick()).toEqual([
      `${hhmm(t.clock.now())}  Licencia de «Bodega Rosa» suspendida: los pagos de sus teléfonos se rechazan. Comunícate con tu proveedor de Cuadra.`,
    ]);
    expect(en.tick()).toEqual([`${hhmm(t.clock.now(), "en")}  License of “Bodega Rosa” suspended: its phones' payments are refused. Contact your Cuadra provider.`]);
    expect(es.tick()).toEqual([]);
    setLicense(t.store.db, t.clock, shop.tenant_id, { plan: "pro" }); // no change of status: nothing to say
    expect(es.tick()).toEqual([]);
    setLicense(t.store.db, t.clock, shop.tenant_id, { status: "active" });
    expect(es.tick()).toEqual([
      `${hhmm(t.clock.now())}  Licencia de «Bodega Rosa» activa de nuevo: los pagos de sus teléfonos se aceptan otra vez (los que guardaron llegan solos).`,
    ]);
  });

  test("expiry is noticed by the clock alone; a shop made after start is its own baseline", async () => {
    const { t, shop } = await box();
    setLicense(t.store.db, t.clock, shop.tenant_id, { expiresAt: t.clock.now() + 1_000 });
    const r = watch(t, "en");
    t.clock.advance(1_000);
    expect(r.tick()).toEqual([]);
    t.clock.advance(1);
    expect(r.tick()).toEqual([
      `${hhmm(t.clock.now(), "en")}  License of “Bodega Rosa” expired: its phones' payments are refused. Contact your Cuadra provider to renew it.`,
    ]);
    const later = t.tenant("Bodega Nueva");
    setLicense(t.store.db, t.clock, later.tenant_id, { status: "active" });
    expect(r.tick()).toEqual([]);
  });
});

describe("when and how serve prints them", () => {
  test("--activity: auto prints only to a terminal; on always; off never; anything else is a usage error", () => {
    expect(activityMode({})).toBe("auto");
    expect(activityMode({ activity: "ON" })).toBe("on");
    expect(() => activityMode({ activity: "yes" })).toThrow(UsageError);
    expect([activityWanted("auto", true), activityWanted("auto", false), activityWanted("on", false), activityWanted("off", true)]).toEqual([true, false, true, false]);
  });

  test("startActivity ticks on its interval when wanted, and writes nothing when not", async () => {
    const { t, scope } = await box();
    const on: string[] = [];
    const off: string[] = [];
    const a = startActivity({ store: t.reader, clock: t.clock, lang: "es", write: (l) => on.push(l), mode: "auto", terminal: true, intervalMs: 5 });
    const b = startActivity({ store: t.reader, clock: t.clock, lang: "es", write: (l) => off.push(l), mode: "auto", terminal: false, intervalMs: 5 });
    try {
      await pay(t, scope, { amount: 2500 });
      for (let i = 0; i < 200 && on.length === 0; i++) await Bun.sleep(5);
      await Bun.sleep(30);
      expect(on).toEqual([expect.stringContaining("Pago S/ 25.00")]);
      expect(off).toEqual([]);
    } finally {
      a.stop();
      b.stop();
    }
  });

  test("a failing tick is reported once per message, and the next ticks go on", async () => {
    const { t, scope } = await box();
    const errors: string[] = [];
    const lines: string[] = [];
    let broken = false;
    const clock = {
      now: () => {
        if (broken) throw new Error("clock broke");
        return t.clock.now();
      },
    };
    const a = startActivity({ store: t.reader, clock, lang: "es", write: (l) => lines.push(l), mode: "on", terminal: false, intervalMs: 5, onError: (e) => errors.push(e.message) });
    try {
      broken = true;
      for (let i = 0; i < 200 && errors.length === 0; i++) await Bun.sleep(5);
      await Bun.sleep(30); // several more failing ticks
      expect(errors).toEqual(["clock broke"]);
      broken = false;
      await pay(t, scope, { amount: 2500 });
      for (let i = 0; i < 200 && lines.length === 0; i++) await Bun.sleep(5);
      expect(lines).toEqual([expect.stringContaining("Pago S/ 25.00")]);
    } finally {
      a.stop();
    }
  });
});

describe("cost", () => {
  const plan = (t: TestApp, sql: string) =>
    t.reader.sqlite
      .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql.replace(/\?1/g, "1").replace(/\?2/g, "1")}`)
      .all()
      .map((r) => r.detail);

  test("new events and matches are read by their seq (a range at the table's end), never by a scan", async () => {
    const { t } = await box();
    for (const name of ["lastEventSeq", "lastMatchSeq", "eventsAfter", "matchesAfter", "eventsRest", "matchesRest"] as const) {
      const details = plan(t, ACTIVITY_SQL[name]);
      expect([name, details.some((d) => /^SCAN (events|matches)\b/.test(d))]).toEqual([name, false]);
      if (name.endsWith("After") || name.endsWith("Rest")) expect([name, details.some((d) => /USING INTEGER PRIMARY KEY \(rowid>\?\)/.test(d))]).toEqual([name, true]);
    }
    // phones and shops: a few rows each on any box
    expect(plan(t, ACTIVITY_SQL.phones).join(" ")).toMatch(/^SCAN devices/);
    expect(plan(t, ACTIVITY_SQL.shops).join(" ")).toMatch(/^SCAN tenants/);
  });
});
