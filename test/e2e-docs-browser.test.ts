// The Swagger page of the built binary in a real browser (Debian's Chromium, driven by
// playwright-core): what a shop developer sees at /docs. The other tests check the HTML, the assets
// and the OpenAPI document one by one; only a browser shows that Swagger UI actually renders every
// operation from the embedded assets and can call the server from the page.
// Runs where Chromium is installed (`apt-get install chromium`; .ci/run installs it).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { startServer, tempDirsRemovedAfterAll, type RunningServer } from "./support/e2e";

setDefaultTimeout(60_000);
const temp = tempDirsRemovedAfterAll();

const CHROMIUM = Bun.which("chromium") ?? Bun.which("chromium-browser");
if (!CHROMIUM) console.warn("e2e-docs-browser: Chromium is not installed (apt-get install chromium); the Swagger page test is skipped");

describe.skipIf(!CHROMIUM)("the Swagger page at /docs, in Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  /** Console errors, failed requests and answers ≥ 400 while the page loads and is used. */
  const problems: string[] = [];
  let operations: { method: string; path: string }[] = [];

  beforeAll(async () => {
    server = await startServer({ dataDir: temp.dataDir() });
    const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((method) => ({ method, path })),
    );
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
    page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
    });
    await page.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
    await page.waitForSelector(".opblock", { timeout: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("it renders the document's title and every operation of the OpenAPI document, with no error", async () => {
    expect(await page.locator(".information-container .title").innerText()).toContain("Cuadra");
    expect(operations.length).toBeGreaterThan(10);
    const rendered = await page.$$eval(".opblock", (blocks) =>
      blocks.map((b) => ({
        method: b.querySelector(".opblock-summary-method")?.textContent?.trim().toLowerCase() ?? "",
        path: b.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "",
      })),
    );
    const key = (o: { method: string; path: string }) => `${o.method} ${o.path}`;
    expect(new Set(rendered.map(key))).toEqual(new Set(operations.map(key)));
    expect(problems).toEqual([]);
  });

  test.each([360, 1280])("at %i px nothing runs past the screen: the long section texts (signing, webhooks) wrap, an opened operation fits", async (width) => {
    const view = await browser.newPage({ viewport: { width, height: 800 } });
    try {
      await view.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
      await view.waitForSelector("#operations-tag-Webhooks");
      expect(await view.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      // The operation with the most examples (one per wallet format), opened.
      await view.click("#operations-Device-sendEvent .opblock-summary");
      await view.waitForSelector("#operations-Device-sendEvent .responses-table");
      expect(await view.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    } finally {
      await view.close();
    }
  });

  test("the security schemes are offered under Authorize", async () => {
    await page.click("button.authorize");
    const dialog = page.locator(".dialog-ux .modal-ux");
    await dialog.waitFor();
    const text = await dialog.innerText();
    // The connector's bearer key; the device surface documents its signature headers.
    expect(text).toMatch(/bearer/i);
    await page.click(".dialog-ux .close-modal");
    expect(problems).toEqual([]);
  });

  test("Try it out on GET /healthz calls the server from the page and shows its 200", async () => {
    const block = page.locator(".opblock-get", { has: page.locator('.opblock-summary-path[data-path="/healthz"]') });
    await block.locator(".opblock-summary").click();
    await block.locator("button.try-out__btn").click();
    await block.locator("button.execute").click();
    const status = block.locator(".live-responses-table .response .response-col_status").first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim()).toBe("200");
    // The server's answer, as the page shows it under "Response body".
    expect(await block.locator(".live-responses-table").innerText()).toMatch(/"status":\s*"ok"/);
    expect(problems).toEqual([]);
  });
});
