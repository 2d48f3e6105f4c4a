// The console through app.handle (contract §18): signing in once, the cookie, revocation at once,
// the same-origin check of every change, one shop and one environment per session, and the pages'
// work going through the connector's own services.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { openSession, revokeAllSessions, revokeSession, SESSION_MS } from "../src/console/sessions";
import { listKeys, setLicense } from "../src/tenants/service";
import { consoleLinks, consoleSessions } from "../src/store/schema";
import { csrfOf, linkToken, signIn } from "./support/console";
import { makeTestApp } from "./support/harness";
import { activatePhone, paymentEvent } from "./support/device";

const t = await makeTestApp();
afterAll(() => t.close());

/** The list region of a page (its filters name every status too). */
const listOf = (page: string): string => page.slice(page.indexOf("data-live>"), page.indexOf("</main>"));
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("getting in", () => {
  test("GET / leads to the console; without a session every page leads to how to sign in", async () => {
    expect((await t.request("GET", "/")).headers.get("location")).toBe("/console/");
    for (const path of ["/console/", "/console/cobrar", "/console/pagos", "/console/ajustes"]) {
      const r = await t.request("GET", path);
      expect([path, r.status, r.headers.get("location")]).toEqual([path, 303, "/console/entrar"]);
    }
    const help = await t.request("GET", "/console/entrar");
    expect(help.status).toBe(200);
    expect(help.text).toContain("cuadra console link --tenant");
    expect((await t.request("GET", "/console/entrar", { headers: { "accept-language": "en-US" } })).text).toContain("To sign in you need a sign-in link");
  });

  test("a link opens one session: HttpOnly, SameSite=Strict, 30 days, Secure over HTTPS; only hashes are stored", async () => {
    const tenant = t.tenant();
    const token = linkToken(t, tenant.tenant_id);
    const r = await t.request("GET", `/console/login?token=${token}`, { headers: { "user-agent": "Mozilla/5.0 Chrome/140" } });
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/console/");
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^cuadra_session=[A-Za-z0-9]{40}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=2592000$/);
    const value = cookie.split(";")[0]!.split("=")[1]!;
    const rows = JSON.stringify([t.store.db.select().from(consoleLinks).all(), t.store.db.select().from(consoleSessions).all()]);
    expect(rows).not.toContain(token);
    expect(rows).not.toContain(value);
    const session = t.store.db.select().from(consoleSessions).where(eq(consoleSessions.tenantId, tenant.tenant_id)).get()!;
    expect(session.expiresAt - session.createdAt).toBe(SESSION_MS);
    expect(session.userAgent).toBe("Mozilla/5.0 Chrome/140");

    const overHttps = await t.send(new Request(`https://localhost/console/login?token=${linkToken(t, tenant.tenant_id)}`));
    expect(overHttps.headers.get("set-cookie")).toEndWith("; Secure");
  });

  test("a used, expired or unknown link is 410 with a page that says how to get a new one", async () => {
    const tenant = t.tenant();
    const token = linkToken(t, tenant.tenant_id, 60);
    expect((await t.request("GET", `/console/login?token=${token}`)).status).toBe(303);
    const again = await t.request("GET", `/console/login?token=${token}`);
    expect(again.status).toBe(410);
    expect(again.text).toContain("ya se usó");
    expect(again.headers.get("set-cookie")).toBeNull();
    const old = linkToken(t, tenant.tenant_id, 60);
    t.clock.advance(60_001);
    const expired = await t.request("GET", `/console/login?token=${old}`);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain("venció");
    expect((await t.request("GET", "/console/login?token=nope")).status).toBe(410);
    expect((await t.request("GET", "/console/login")).status).toBe(410);
  });

  test("the same link opened twice at once makes one session", async () => {
    const tenant = t.tenant();
    const token = linkToken(t, tenant.tenant_id);
    const answers = await Promise.all([1, 2, 3].map(() => t.request("GET", `/console/login?token=${token}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410]);
    expect(t.store.db.select().from(consoleSessions).where(eq(consoleSessions.tenantId, tenant.tenant_id)).all()).toHaveLength(1);
  });

  test("a revoked or expired session is refused on its next request; signing out ends it", async () => {
    const b = await signIn(t);
    expect((await b.get("/console/")).status).toBe(200);
    const [session] = t.store.db.select().from(consoleSessions).where(eq(consoleSessions.tenantId, b.tenantId)).all();
    revokeSession(t.store.db, session!.id, t.clock.now()); // as `cuadra console revoke` does, on its own connection
    expect((await b.get("/console/")).headers.get("location")).toBe("/console/entrar");

    const c = await signIn(t, b.tenantId);
    const d = await signIn(t, b.tenantId);
    expect(revokeAllSessions(t.store.db, b.tenantId, t.clock.now())).toEqual({ tenant_id: b.tenantId, revoked: 2 });
    expect((await c.get("/console/")).status).toBe(303);
    expect((await d.get("/console/")).status).toBe(303);

    const e = await signIn(t, b.tenantId);
    t.clock.advance(SESSION_MS);
    expect((await e.get("/console/")).status).toBe(303);

    const f = await signIn(t, b.tenantId);
    const out = await f.post("/console/salir");
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await f.get("/console/")).status).toBe(303);
  });
});

describe("changes need the session, this box's origin and the form's token", () => {
  test("refused with 403, and nothing is made", async () => {
    const b = await signIn(t);
    const csrf = csrfOf((await b.get("/console/cobrar")).text);
    const post = (headers: Record<string, string>, body = form({ _csrf: csrf, amount: "31" })) => t.request("POST", "/console/cobrar", { headers: { ...FORM, ...headers }, body });
    expect((await post({ origin: "http://localhost" })).status).toBe(403); // no cookie
    expect((await post({ origin: "http://evil.example", cookie: b.cookie })).status).toBe(403);
    expect((await post({ origin: "null", cookie: b.cookie })).status).toBe(403);
    expect((await post({ origin: "https://localhost", cookie: b.cookie })).status).toBe(403); // another scheme is another origin
    expect((await post({ origin: "http://localhost", cookie: b.cookie }, form({ amount: "31" }))).status).toBe(403); // no token
    expect((await post({ origin: "http://localhost", cookie: b.cookie }, form({ _csrf: "0".repeat(32), amount: "31" }))).status).toBe(403);
    const other = await signIn(t, b.tenantId);
    expect((await post({ origin: "http://localhost", cookie: other.cookie })).status).toBe(403); // another session's token
    expect((await b.get("/console/pedidos")).text).not.toContain("S/ 31.00");
    // The same request from the page itself works, with or without Origin (older browsers).
    expect((await post({ origin: "http://localhost", cookie: b.cookie })).status).toBe(303);
    expect((await post({ cookie: b.cookie })).status).toBe(303);
  });

  test("behind a proxy, the public address is this box's origin", async () => {
    const proxied = await makeTestApp({ publicUrl: "https://caja.example.pe" });
    try {
      const b = await signIn(proxied);
      expect((await b.post("/console/cobrar", { amount: "12" }, { from: "/console/cobrar", origin: "https://caja.example.pe" })).status).toBe(303);
      expect((await b.post("/console/cobrar", { amount: "12" }, { from: "/console/cobrar", origin: "https://otra.example.pe" })).status).toBe(403);
    } finally {
      await proxied.close();
    }
  });
});

describe("one shop, one environment", () => {
  test("a session sees and changes only its own shop's orders, phones and keys", async () => {
    const a = await signIn(t);
    const b = await signIn(t);
    const made = await b.post("/console/cobrar", { amount: "45" }, { from: "/console/cobrar" });
    const bOrder = made.headers.get("location")!;
    expect((await b.get(bOrder)).status).toBe(200);
    expect((await a.get(bOrder)).status).toBe(404);
    const phone = await activatePhone(t, { tenantId: b.tenantId, label: "Caja de B" });
    expect((await a.get(`/console/telefonos/${phone.deviceId}/revocar`)).status).toBe(404);
    expect((await a.post(`/console/telefonos/${phone.deviceId}/revocar`)).status).toBe(404);
    expect((await a.get("/console/telefonos")).text).not.toContain("Caja de B");
    expect((await b.get("/console/telefonos")).text).toContain("Caja de B");
    const keys = await b.get("/console/ajustes");
    const keyId = /\/console\/ajustes\/claves\/(key_[A-Za-z0-9]+)\/revocar/.exec(keys.text)![1]!;
    expect((await a.post(`/console/ajustes/claves/${keyId}/revocar`, {}, { from: "/console/ajustes" })).status).toBe(404);
    expect((await b.get("/console/ajustes")).text).toContain(`/console/ajustes/claves/${keyId}/revocar`); // still active
  });

  test("the writes themselves refuse another shop's key or phone, and another environment's phone", async () => {
    const a = t.tenant();
    const b = t.tenant();
    const [bKey] = listKeys(t.store.db, b.tenant_id);
    const refusal = (p: Promise<unknown>) => p.then(() => "done", (e: Error) => e.message);
    expect(await refusal(t.writer.run("revokeKey", { tenantId: a.tenant_id, keyId: bKey!.key_id, now: t.clock.now() }))).toContain("no key");
    const phone = await activatePhone(t, { tenantId: b.tenant_id });
    const now = t.clock.now();
    expect(await refusal(t.writer.run("revokeDevice", { scope: { tenantId: a.tenant_id, environment: "live" }, deviceId: phone.deviceId, now }))).toContain("no device");
    expect(await refusal(t.writer.run("revokeDevice", { scope: { tenantId: b.tenant_id, environment: "test" }, deviceId: phone.deviceId, now }))).toContain("no device");
    expect(await t.writer.run("revokeDevice", { scope: { tenantId: b.tenant_id, environment: "live" }, deviceId: phone.deviceId, now })).toEqual({ device_id: phone.deviceId, status: "revoked" });
  });

  test("live and test data are apart; the switch is the session's, with the banner and 'Simular pago' in test mode only", async () => {
    const b = await signIn(t);
    const live = await b.post("/console/cobrar", { amount: "52" }, { from: "/console/cobrar" });
    expect((await b.post("/console/simular", { amount: "52", back: "/console/" })).status).toBe(403); // live: no simulated payments
    expect((await b.get("/console/")).text).not.toContain("Modo de prueba");
    expect((await b.post("/console/modo", { env: "test", back: "/console/pedidos" })).headers.get("location")).toBe("/console/pedidos");
    const page = await b.get("/console/pedidos");
    expect(page.text).toContain("Modo de prueba");
    expect(page.text).not.toContain("S/ 52.00");
    expect((await b.get(live.headers.get("location")!)).status).toBe(404);
    const other = await signIn(t, b.tenantId); // another browser of the same shop stays in live
    expect((await other.get("/console/pedidos")).text).toContain("S/ 52.00");
  });
});

describe("the pages' work is the connector's", () => {
  test('"Cobrar" makes a unique-amount order that expires in 15 minutes, readable by the shop\'s software', async () => {
    const tenant = t.tenant();
    const b = await signIn(t, tenant.tenant_id);
    const first = await b.post("/console/cobrar", { amount: "25,50", customer: "Ana <b>Torres</b>" }, { from: "/console/cobrar" });
    const second = await b.post("/console/cobrar", { amount: "25.50" }, { from: "/console/cobrar" });
    const id = decodeURIComponent(first.headers.get("location")!.split("/").pop()!);
    const order = await t.request("GET", `/connector/v1/orders/${id}`, { headers: { authorization: `Bearer ${tenant.keys.live}` } });
    expect(order.body).toMatchObject({ amount: 2550, expected_amount: 2550, status: "pending", customer_name: "Ana <b>Torres</b>", unique_amount: true });
    expect(order.body.expires_at - order.body.created_at).toBe(15 * 60_000);
    const page = await b.get(first.headers.get("location")!);
    expect(page.text).toContain("S/ 25.50");
    expect(page.text).toContain("Ana &lt;b&gt;Torres&lt;/b&gt;");
    expect(page.text).toContain('data-refresh="1000"');
    expect((await b.get(second.headers.get("location")!)).text).toContain("S/ 25.51"); // the next free cent
  });

  test('"Cobrar" refuses what is not an amount, and keeps what was typed', async () => {
    const b = await signIn(t);
    for (const amount of ["", "abc", "0", "25.555", "1000000.01"]) {
      const r = await b.post("/console/cobrar", { amount, customer: "Luis" }, { from: "/console/cobrar" });
      expect([amount, r.status]).toEqual([amount, 400]);
      expect(r.text).toContain("Escribe el monto en soles");
      expect(r.text).toContain('value="Luis"');
    }
  });

  test('an order is "Pagado" with the payer once a phone\'s payment matches it', async () => {
    const tenant = t.tenant();
    const b = await signIn(t, tenant.tenant_id);
    const at = (await b.post("/console/cobrar", { amount: "18" }, { from: "/console/cobrar" })).headers.get("location")!;
    const phone = await activatePhone(t, { tenantId: tenant.tenant_id });
    const event = paymentEvent(t, { amount: 1800, payer_name: "Yanina Man*" });
    expect((await phone.client.sendEvent(event)).body).toMatchObject({ match: { status: "matched" } });
    const page = await b.get(at);
    expect(page.text).toContain("Pagado");
    expect(page.text).toContain("Yanina Man*");
    expect(page.text).not.toContain("data-refresh"); // nothing left to wait for
  });

  test('"Asignar": an ambiguous payment, its candidates of the same amount first, a manual match; a second is 409', async () => {
    const tenant = t.tenant();
    const key = { authorization: `Bearer ${tenant.keys.live}` };
    const now = t.clock.now();
    await t.request("POST", "/connector/v1/orders", {
      headers: key,
      body: { orders: [{ id: "A-1", amount: 4000, currency: "PEN", created_at: now - 1000 }, { id: "A-2", amount: 4000, currency: "PEN", created_at: now - 500 }, { id: "B-9", amount: 999, currency: "PEN" }] },
    });
    const phone = await activatePhone(t, { tenantId: tenant.tenant_id });
    const event = paymentEvent(t, { amount: 4000, payer_name: "Carla Ruiz" });
    expect((await phone.client.sendEvent(event)).body).toMatchObject({ match: { status: "ambiguous" } });
    const b = await signIn(t, tenant.tenant_id);
    const waiting = await b.get("/console/pagos?estado=esperan");
    expect(waiting.text).toContain("Carla Ruiz");
    const assign = `/console/pagos/${event.event_id}?telefono=${phone.deviceId}`;
    expect(waiting.text).toContain(`href="${assign}"`);
    const page = await b.get(assign);
    const order = [...page.text.matchAll(/name="order" value="([^"]+)"/g)].map((m) => m[1]);
    expect(order.slice(0, 2).sort()).toEqual(["A-1", "A-2"]);
    expect(order).toContain("B-9"); // a person may choose any pending order, after those of its amount
    expect(order.indexOf("B-9")).toBe(2);
    const done = await b.post(`/console/pagos/${event.event_id}`, { order: "A-2", device: phone.deviceId }, { from: assign });
    expect(done.headers.get("location")).toBe("/console/pagos?asignado=A-2");
    const feed = await t.request("GET", "/connector/v1/matches", { headers: key });
    expect(feed.body.data).toContainEqual(expect.objectContaining({ order_id: "A-2", event_id: event.event_id, method: "manual" }));
    const again = await b.post(`/console/pagos/${event.event_id}`, { order: "A-1", device: phone.deviceId }, { from: assign });
    expect(again.status).toBe(409); // the payment is matched now: the page says so instead of a form
    expect(again.text).toContain("ya está emparejado");
    expect((await b.post(`/console/pagos/${event.event_id}`, {}, { from: assign })).text).toContain("Elige un pedido");
  });

  test('"Hoy" counts a payment once however many phones report it; "Pagos" lists newest first, by status and wallet', async () => {
    const tenant = t.tenant();
    const one = await activatePhone(t, { tenantId: tenant.tenant_id, label: "Caja 1" });
    const two = await activatePhone(t, { tenantId: tenant.tenant_id, label: "Caja 2" });
    const first = paymentEvent(t, { amount: 1500, source: "yape", payer_name: "Ana Paz", reference: "R-1" });
    expect((await one.client.sendEvent(first)).status).toBe(201);
    expect((await two.client.sendEvent({ ...first, event_id: "other-phone-1" })).body).toMatchObject({ match: { status: "duplicate" } });
    t.clock.advance(60_000);
    expect((await one.client.sendEvent(paymentEvent(t, { amount: 2200, source: "plin", payer_name: "Luis Rojas" }))).status).toBe(201);
    const b = await signIn(t, tenant.tenant_id);
    const today = (await b.get("/console/")).text;
    expect(/data-testid="received-count">(\d+)</.exec(today)![1]).toBe("2");
    expect(today).toContain("S/ 37.00");
    expect(/data-testid="waiting-count">(\d+)</.exec(today)![1]).toBe("2");
    const all = (await b.get("/console/pagos")).text;
    expect(all.indexOf("Luis Rojas")).toBeGreaterThan(0);
    expect(all.indexOf("Luis Rojas")).toBeLessThan(all.indexOf("Ana Paz")); // newest first
    expect(all).toContain("Duplicado");
    const plin = (await b.get("/console/pagos?billetera=plin")).text;
    expect(plin).toContain("Luis Rojas");
    expect(plin).not.toContain("Ana Paz");
    const dups = listOf((await b.get("/console/pagos?estado=duplicados&billetera=yape")).text);
    expect(dups).toContain("Duplicado");
    expect(dups).not.toContain("Sin pedido");
  });

  test('"Pagos" pages by an opaque cursor of its own shop; a foreign one starts from the newest', async () => {
    const tenant = t.tenant();
    const phone = await activatePhone(t, { tenantId: tenant.tenant_id });
    for (let i = 0; i < 52; i++) {
      t.clock.advance(1000);
      expect((await phone.client.sendEvent(paymentEvent(t, { amount: 100 + i, payer_name: `Cliente ${i}` }))).status).toBe(201);
    }
    const b = await signIn(t, tenant.tenant_id);
    const first = (await b.get("/console/pagos")).text;
    expect(first).toContain("Cliente 51");
    expect(first).not.toContain("Cliente 1<");
    const more = /href="\/console\/pagos\?(antes=[^"]+)"/.exec(first)![1]!.replace(/&amp;/g, "&");
    const second = (await b.get(`/console/pagos?${more}`)).text;
    expect(second).toContain("Cliente 1<");
    expect(second).toContain("Cliente 0<");
    expect(second).not.toContain("Cliente 2<");
    expect(second).not.toContain("data-refresh"); // an older page stays still
    const other = await signIn(t);
    expect((await other.get(`/console/pagos?${more}`)).text).not.toContain("Cliente");
  });

  test("a suspended or expired license shows on every page, saying what it means and what to do", async () => {
    const tenant = t.tenant();
    const b = await signIn(t, tenant.tenant_id);
    expect((await b.get("/console/")).text).not.toContain("Licencia");
    setLicense(t.store.db, t.clock, tenant.tenant_id, { status: "suspended" });
    for (const path of ["/console/", "/console/cobrar", "/console/pagos", "/console/pedidos", "/console/telefonos", "/console/ajustes"]) {
      const text = (await b.get(path)).text;
      expect(text).toContain("Licencia suspendida.");
      expect(text).toContain("Los pagos que envían los teléfonos se rechazan");
      expect(text).toContain("Comunícate con tu proveedor");
    }
    setLicense(t.store.db, t.clock, tenant.tenant_id, { status: "active", expiresAt: t.clock.now() - 1 });
    expect((await b.get("/console/")).text).toContain("Licencia vencida el");
  });

  test('"Vincular teléfono" makes a code of the session\'s environment; "Crear clave" shows the key once', async () => {
    const b = await signIn(t);
    await b.post("/console/modo", { env: "test" });
    const pair = await b.post("/console/telefonos/vincular", {}, { from: "/console/telefonos" });
    expect(pair.status).toBe(200);
    expect(pair.text).toContain('role="img" aria-label="Código QR para vincular un teléfono"');
    const code = /data-testid="pairing-code">([A-Z-]+)</.exec(pair.text)![1]!;
    const activation = await t.request("POST", "/device/v1/activation", {
      body: { activation_code: code, device_label: "Caja T", app_version: "1.0.0", platform: "android", os_version: "14" },
    });
    expect(activation.status).toBe(201);
    expect(activation.body.environment).toBe("test");
    const made = await b.post("/console/ajustes/claves", {}, { from: "/console/ajustes" });
    const key = /data-testid="secret">([^<]+)</.exec(made.text)![1]!;
    expect(key).toMatch(/^sk_test_/);
    expect((await b.get("/console/ajustes")).text).not.toContain(key);
  });

  test("the pages that change by themselves name their live regions", async () => {
    const b = await signIn(t);
    for (const [path, id] of [["/console/", "today-live"], ["/console/pagos", "payments-live"], ["/console/pedidos", "orders-live"], ["/console/telefonos", "phones-live"]]) {
      const text = (await b.get(path!)).text;
      expect(text).toContain('data-refresh="3000"');
      expect(text).toContain(`id="${id}" data-live`);
    }
  });

  test("the stylesheet and script are the box's own, cached by content; an unknown console page is a page, 404", async () => {
    const b = await signIn(t);
    const page = (await b.get("/console/")).text;
    const css = /href="(\/console\/assets\/console-[0-9a-f]{12}\.css)"/.exec(page)![1]!;
    const js = /src="(\/console\/assets\/console-[0-9a-f]{12}\.js)"/.exec(page)![1]!;
    for (const path of [css, js]) {
      const r = await t.request("GET", path);
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toContain("immutable");
    }
    const missing = await b.get("/console/nada");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("text/html");
    expect((await b.get("/console/")).headers.get("content-security-policy")).toContain("default-src 'self'");
  });
});

test("opening a session directly, as the writer does, refuses a link of another box", () => {
  expect(() => openSession(t.store.db, "x".repeat(40), null, t.clock.now())).toThrow(/unknown or expired/);
});
