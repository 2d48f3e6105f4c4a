// The merchant's console (contract §18) in a real browser (Debian's Chromium, driven by
// playwright-core), over the built binary: signing in with the link the CLI prints, charging with
// "Cobrar" and seeing "Pagado" without reload, settling an ambiguous payment with "Asignar",
// pairing a phone from the QR code on the screen, a phone going quiet, refusals, and no request
// leaving the box. Screenshots of every page at phone and desktop width go to test/screenshots/.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { PNG } from "pngjs";
import jsQR from "jsqr";
import { DeviceClient } from "../src/client/device-client";
import { cli, ROOT, startServer, tempDirsRemovedAfterAll, type RunningServer } from "./support/e2e";

setDefaultTimeout(60_000);
const temp = tempDirsRemovedAfterAll();

const CHROMIUM = Bun.which("chromium") ?? Bun.which("chromium-browser");
if (!CHROMIUM) console.warn("e2e-console-browser: Chromium is not installed (apt-get install chromium); the console tests are skipped");

const SCREENSHOTS = join(ROOT, "test", "screenshots");
const SIZES = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 800 } } as const;

describe.skipIf(!CHROMIUM)("the console in Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let shop: { tenant_id: string; keys: { live: string; test: string } };
  /** Every URL the pages asked for: all must be the box's own. */
  const requested: string[] = [];
  const problems: string[] = [];

  const link = async (ttl?: number): Promise<string> => {
    const r = await cli(server.dataDir, ["console", "link", "--tenant", shop.tenant_id, "--json", ...(ttl ? ["--ttl", String(ttl)] : [])]);
    expect(r.code).toBe(0);
    return r.json.url as string;
  };

  const connector = (key: string) => (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}/connector/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  async function newContext(size: keyof typeof SIZES = "desktop"): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: SIZES[size], locale: "es-PE" });
    context.on("request", (r) => requested.push(r.url()));
    context.on("page", (p) => watch(p));
    return context;
  }

  function watch(page: Page) {
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  }

  /** A browser signed in with a fresh link (the link is opened as a person would open it). */
  async function signedIn(size: keyof typeof SIZES = "desktop"): Promise<{ context: BrowserContext; page: Page }> {
    const context = await newContext(size);
    const page = await context.newPage();
    await page.goto(await link());
    expect(new URL(page.url()).pathname).toBe("/console/");
    return { context, page };
  }

  /** Follows a link of the menu. */
  const go = (page: Page, name: string) => page.getByRole("navigation", { name: "Secciones" }).getByRole("link", { name, exact: true }).click();

  /** Waits (5 s at most) for `text` in the page's main region. */
  const seen = (page: Page, text: string) => page.locator("main", { hasText: text }).waitFor({ timeout: 5000 });

  async function screenshot(page: Page, name: string) {
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(SIZES.desktop);
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startServer({ dataDir: temp.dataDir() });
    const made = await cli(server.dataDir, ["tenant", "create", "--name", "Bodega Rosa", "--json"]);
    shop = made.json;
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  }, 120_000);

  afterAll(async () => {
    if (process.env.DEBUG_CONSOLE) console.log(server?.output().split("\n").filter((l) => l.includes('"error"')).join("\n"));
    await browser?.close();
    await server?.stop();
  });

  test("GET / leads to the console, and without a session to the page that says how to sign in", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/console/entrar");
    await page.getByRole("heading", { name: "Entrar a la consola" }).waitFor({ timeout: 5000 });
    expect(await page.locator("main").innerText()).toContain("cuadra console link");
    await screenshot(page, "entrar");
    await context.close();
  });

  test("a sign-in link opens a session once; the token leaves the address; a revoked session is refused within a second", async () => {
    const url = await link();
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(url);
    expect(page.url()).toBe(`${server.url}/console/`);
    await page.getByRole("heading", { name: "Hoy" }).waitFor({ timeout: 5000 });
    const cookie = (await context.cookies()).find((c) => c.name === "cuadra_session")!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe("Strict");
    expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);

    // The same link in another browser: refused, and the page says how to get a new one.
    const other = await newContext();
    const second = await other.newPage();
    const answer = await second.goto(url);
    expect(answer!.status()).toBe(410);
    expect(await second.locator("main").innerText()).toContain("cuadra console link");
    await screenshot(second, "enlace-usado");
    expect((await other.cookies()).find((c) => c.name === "cuadra_session")).toBeUndefined();
    await other.close();

    const sessions = await cli(server.dataDir, ["console", "sessions", "--tenant", shop.tenant_id, "--json"]);
    const mine = (sessions.json as { session_id: string; user_agent: string }[]).at(-1)!;
    expect(mine.user_agent).toContain("Chrome");
    expect((await cli(server.dataDir, ["console", "revoke", mine.session_id])).code).toBe(0);
    const started = Date.now();
    await page.reload();
    expect(new URL(page.url()).pathname).toBe("/console/entrar");
    expect(Date.now() - started).toBeLessThan(1000);
    await context.close();
  });

  test('"Cobrar" S/ 25 in test mode, a test payment of the amount shown → "Pagado" with the payer\'s name, without reload', async () => {
    const { context, page } = await signedIn();
    await page.getByRole("button", { name: "Ver datos de prueba" }).click();
    await page.getByRole("note", { name: "Modo de prueba" }).waitFor({ timeout: 5000 });
    await go(page, "Cobrar");
    await screenshot(page, "cobrar");
    await page.getByLabel("Monto").fill("25");
    await page.getByLabel("Nombre del cliente").fill("Yanina Manrique");
    await page.getByRole("button", { name: "Cobrar", exact: true }).click();
    const shown = await page.getByTestId("charge-amount").innerText();
    expect(shown).toMatch(/^S\/ 25\.\d\d$/);
    await screenshot(page, "cobrar-esperando");
    const navigations: string[] = [];
    page.on("framenavigated", (f) => navigations.push(f.url()));

    const cents = Math.round(Number(shown.replace("S/ ", "")) * 100);
    const paid = await connector(shop.keys.test)("POST", "/test/payments", { kind: "payment.received", source: "yape", amount: cents, currency: "PEN", payer_name: "Yanina Man*" });
    expect(paid.body.match.status).toBe("matched");
    const matchedAt = Date.now();
    await page.getByText("Pagado", { exact: true }).waitFor({ timeout: 5000 });
    expect(Date.now() - matchedAt).toBeLessThan(2000);
    expect(await page.locator("#charge-live").innerText()).toContain("Yanina Man*");
    expect(navigations).toEqual([]);
    await screenshot(page, "cobrar-pagado");
    await context.close();
  });

  test('two orders of one amount, one payment: "Pagos" shows it waiting; "Asignar" matches it by hand, and the feed says manual', async () => {
    const live = connector(shop.keys.live);
    const now = Date.now();
    const synced = await live("POST", "/orders", {
      orders: [
        { id: "A-1041", amount: 4000, currency: "PEN", customer_name: "Ana Torres", created_at: now - 60_000 },
        { id: "A-1042", amount: 4000, currency: "PEN", customer_name: "Luis Quispe", created_at: now - 30_000 },
      ],
    });
    expect(synced.status).toBe(200);
    // A phone reports the payment; two orders fit and no name tells them apart.
    const phone = await pairPhone("live", "Caja 1");
    const sent = await phone.sendEvent({ event_id: "evt-amb-1", kind: "payment.received", occurred_at: Date.now(), source: "plin", amount: 4000, currency: "PEN", payer_name: "Carla Ruiz" });
    expect((sent.body as { match: { status: string } }).match.status).toBe("ambiguous");

    const { context, page } = await signedIn();
    await go(page, "Pagos");
    await page.getByLabel("Estado").selectOption({ label: "Esperan a una persona" });
    await page.getByRole("button", { name: "Filtrar" }).click();
    await seen(page, "Carla Ruiz");
    await screenshot(page, "pagos");
    await page.getByRole("link", { name: "Asignar" }).first().click();
    await page.getByRole("radio").nth(1).waitFor({ timeout: 5000 });
    await screenshot(page, "asignar");
    await page.getByRole("radio", { name: /A-1042/ }).check();
    await page.getByRole("button", { name: "Asignar" }).click();
    await page.getByRole("status").filter({ hasText: "A-1042" }).waitFor();

    const feed = await live("GET", "/matches");
    const match = (feed.body.data as { order_id: string; method: string; event_id: string }[]).find((m) => m.event_id === "evt-amb-1");
    expect(match).toMatchObject({ order_id: "A-1042", method: "manual" });
    await go(page, "Pedidos");
    await seen(page, "asignado a mano");
    await screenshot(page, "pedidos");
    await context.close();
  });

  test('"Vincular teléfono" shows a QR code that decodes to a pairing URI a phone activates with', async () => {
    const { context, page } = await signedIn("phone");
    await go(page, "Teléfonos");
    await page.getByRole("button", { name: "Vincular teléfono" }).click();
    const qr = page.getByRole("img", { name: "Código QR para vincular un teléfono" });
    await qr.scrollIntoViewIfNeeded();
    const png = PNG.sync.read(await qr.screenshot());
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toStartWith("cuadra://pair?");
    const uri = decoded!.data;
    expect(new URL(new URL(uri).searchParams.get("url")!).port).toBe(String(server.port));
    expect(uri).toContain(`code=${(await page.getByTestId("pairing-code").innerText()).trim()}`);
    await screenshot(page, "vincular");
    const { activation } = await DeviceClient.pair(uri, { device_label: "Caja QR", platform: "android", app_version: "1.4.0", os_version: "14" });
    expect(activation.device_id).toStartWith("dev_");
    await go(page, "Teléfonos");
    await seen(page, "Caja QR");
    await context.close();
  });

  test('a phone whose heartbeats stop shows as offline on "Hoy" and "Teléfonos"; the warning goes when it is back', async () => {
    // Its first heartbeat was four minutes ago: three intervals make a phone offline (§5).
    const phone = await pairPhone("live", "Caja 2");
    phone.clockOffsetMs -= 240_000;
    expect((await phone.heartbeat({ battery_level: 64, charging: false, notification_access: true, listener_connected: true, queue_depth: 0 })).status).toBe(200);
    phone.clockOffsetMs += 240_000;
    const { context, page } = await signedIn();
    await page.getByTestId("offline-warning").filter({ hasText: "Caja 2" }).waitFor({ timeout: 5000 });
    await screenshot(page, "hoy");
    await go(page, "Teléfonos");
    await page.locator("li", { hasText: "Caja 2" }).filter({ hasText: "Sin conexión" }).filter({ hasText: "64 %" }).waitFor({ timeout: 5000 });
    // It is back: the warning goes by itself (the page refreshes its lists), without reload.
    expect((await phone.heartbeat({ battery_level: 63 })).status).toBe(200);
    await page.locator("li", { hasText: "Caja 2" }).filter({ hasText: "En línea" }).filter({ hasText: "63 %" }).waitFor({ timeout: 5000 });
    await screenshot(page, "telefonos");
    await go(page, "Hoy");
    await page.getByTestId("received-count").waitFor();
    expect(await page.getByTestId("offline-warning").innerText()).not.toContain("Caja 2");
    // "Revocar" asks first, then the phone is refused.
    await go(page, "Teléfonos");
    await page.locator("li", { hasText: "Caja 2" }).getByRole("link", { name: "Revocar" }).click();
    await screenshot(page, "revocar");
    await page.getByRole("button", { name: "Sí, revocar" }).click();
    expect((await phone.heartbeat({})).status).toBe(403);
    await context.close();
  });

  test('"Ajustes": a key is shown once and works; "Otro dispositivo" gives a QR code that signs in a tablet', async () => {
    const { context, page } = await signedIn();
    await go(page, "Ajustes");
    await screenshot(page, "ajustes");
    await page.getByRole("button", { name: "Crear clave" }).click();
    const key = (await page.getByTestId("secret").innerText()).trim();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32,}$/);
    expect((await connector(key)("GET", "/devices")).status).toBe(200);
    await page.getByRole("button", { name: "Otro dispositivo" }).click();
    const qr = page.getByRole("img", { name: "Código QR para entrar a la consola" });
    const png = PNG.sync.read(await qr.screenshot());
    const url = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
    expect(url).toStartWith(`${server.url}/console/login?token=`);
    await screenshot(page, "otro-dispositivo");
    const tablet = await newContext("phone");
    const tab = await tablet.newPage();
    await tab.goto(url!);
    await tab.getByRole("heading", { name: "Hoy" }).waitFor({ timeout: 5000 });
    await tablet.close();
    await context.close();
  });

  test("a change without the session, or from another origin, is refused (403) and changes nothing", async () => {
    const { context, page } = await signedIn();
    await go(page, "Cobrar");
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const cookie = (await context.cookies()).find((c) => c.name === "cuadra_session")!;
    const form = (extra: Record<string, string> = {}) => new URLSearchParams({ _csrf: csrf, amount: "31", ...extra }).toString();
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/console/cobrar`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: form() });
    expect((await post({ origin: server.url })).status).toBe(403); // no cookie
    expect((await post({ origin: "http://evil.example", cookie: `cuadra_session=${cookie.value}` })).status).toBe(403);
    expect((await post({ origin: server.url, cookie: `cuadra_session=${cookie.value}` })).status).toBe(303); // the real thing works
    // A page of another site posting a form to the box: the browser sends no Strict cookie and its Origin.
    const evil = await context.newPage();
    await evil.route("http://evil.example/", (r) =>
      r.fulfill({ contentType: "text/html", body: `<form method="post" action="${server.url}/console/cobrar"><input name="amount" value="99"><input name="_csrf" value="${csrf}"></form><script>document.forms[0].submit()</script>` }),
    );
    const refused = evil.waitForResponse((r) => r.url() === `${server.url}/console/cobrar` && r.request().method() === "POST");
    await evil.goto("http://evil.example/");
    expect((await refused).status()).toBe(403);
    const orders = await connector(shop.keys.live)("GET", "/orders?status=pending");
    expect((orders.body.data as { amount: number }[]).some((o) => o.amount === 9900)).toBe(false);
    await context.close();
  });

  test("every page loads nothing from another host, has no script error, and weighs under 300 KB", async () => {
    const { context, page } = await signedIn();
    for (const path of ["/console/", "/console/cobrar", "/console/pagos", "/console/pedidos", "/console/telefonos", "/console/ajustes"]) {
      let bytes = 0;
      const sizes = (r: import("playwright-core").Response) => r.body().then((b) => (bytes += b.length)).catch(() => {});
      page.on("response", sizes);
      await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
      page.off("response", sizes);
      expect(bytes).toBeLessThan(300 * 1024);
    }
    await go(page, "Pedidos");
    await screenshot(page, "pedidos");
    const foreign = requested.filter((u) => !u.startsWith(server.url) && !u.startsWith("http://evil.example") && !u.startsWith("data:"));
    expect(foreign).toEqual([]);
    // Refusals and the used link are answered 403 and 410 on purpose; anything else is a problem.
    expect(problems.filter((p) => !/status of (403|410)/.test(p))).toEqual([]);
    await context.close();
  });

  test("English when the browser prefers it, and by choice", async () => {
    const context = await browser.newContext({ viewport: SIZES.desktop, locale: "en-US" });
    const page = await context.newPage();
    await page.goto(await link());
    await page.getByRole("heading", { name: "Today" }).waitFor({ timeout: 5000 });
    await page.getByRole("button", { name: "Ver en español" }).click();
    await page.getByRole("heading", { name: "Hoy" }).waitFor({ timeout: 5000 });
    await context.close();
  });

  /** A phone paired from a code the CLI makes, as the app does with a scanned URI. */
  async function pairPhone(env: "live" | "test", label: string): Promise<DeviceClient> {
    const code = await cli(server.dataDir, ["code", "create", "--tenant", shop.tenant_id, "--env", env, "--json"]);
    const { client } = await DeviceClient.pair(code.json.pairing_uri, { device_label: label, platform: "android", app_version: "1.4.0", os_version: "14" });
    return client;
  }
});
