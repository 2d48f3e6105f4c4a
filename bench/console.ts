// The merchant's console on a loaded box (issue 14; contract §18): bytes transferred and time to the
// first rendered "Hoy", on a copy of the bench seed (100 000 pending orders, 1 000 000 stored
// events), over the built binary. In Chromium when it is installed (each load in a fresh browser
// context: nothing cached), and the server's own answer time for GET /console/ either way.
// Goals: under 300 KB and under 300 ms.
// Standalone: `bun bench/console.ts` (uses or builds the cached seed, like `bun run bench`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../test/support/e2e";
import { cachedSeed, copyDataDir } from "./seed";

const ROOT = resolve(import.meta.dir, "..");
const BINARY = join(ROOT, "dist", "cuadra");

export interface ConsoleLoad {
  /** Chromium: navigation start to the load event of /console/, per fresh context; empty without Chromium. */
  browserMs: number[];
  /** Chromium: bytes on the wire for the page and its assets (headers and bodies). */
  bytes: number[];
  /** Server: GET /console/ with the session cookie, whole answer read, one at a time. */
  serverMs: number[];
}

async function must(cmd: string[]): Promise<string> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")}: exit ${code}: ${err}`);
  return out;
}

export async function consoleLoad(seedDir: string, tenantId: string, loads = 9): Promise<ConsoleLoad> {
  const work = mkdtempSync(join(tmpdir(), "cuadra-bench-console-"));
  const dataDir = join(work, "data");
  copyDataDir(seedDir, dataDir);
  const port = await freePort();
  const server = Bun.spawn([BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--tls", "off", "--no-init", "--no-mdns", "--data-dir", dataDir], {
    stdout: "ignore",
    stderr: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) break;
      if (i > 600) throw new Error("the server did not start");
      await Bun.sleep(50);
    }
    const link = async () =>
      (JSON.parse(await must([BINARY, "console", "link", "--tenant", tenantId, "--json", "--data-dir", dataDir])) as { url: string }).url.replace(/^https?:\/\/[^/]+/, base);
    const signIn = await fetch(await link(), { redirect: "manual" });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const serverMs: number[] = [];
    for (let i = 0; i < loads * 2; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/console/`, { headers: { cookie } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /console/ answered ${res.status}`);
      serverMs.push(performance.now() - t0);
    }
    const browserMs: number[] = [];
    const bytes: number[] = [];
    const chromium = Bun.which("chromium") ?? Bun.which("chromium-browser");
    if (chromium) {
      const { chromium: driver } = await import("playwright-core");
      const browser = await driver.launch({ executablePath: chromium, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
      try {
        for (let i = 0; i < loads; i++) {
          const context = await browser.newContext({ locale: "es-PE" });
          await context.addCookies([{ name: "cuadra_session", value: cookie.split("=")[1]!, url: base }]);
          const page = await context.newPage();
          const finished: Promise<number>[] = [];
          page.on("requestfinished", (r) => finished.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)));
          const t0 = performance.now();
          await page.goto(`${base}/console/`, { waitUntil: "load" });
          browserMs.push(performance.now() - t0);
          if (!(await page.getByRole("heading", { name: "Hoy" }).isVisible())) throw new Error("Hoy was not rendered");
          bytes.push((await Promise.all(finished)).reduce((a, n) => a + n, 0));
          await context.close();
        }
      } finally {
        await browser.close();
      }
    }
    return { browserMs, bytes, serverMs };
  } finally {
    server.kill("SIGTERM");
    await server.exited;
    rmSync(work, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export function consoleLines(r: ConsoleLoad): string[] {
  const f = (xs: number[], d = 1) => xs.map((x) => x.toFixed(d)).join(", ");
  return [
    `console "Hoy" on the loaded database: server answer median ${median(r.serverMs).toFixed(1)} ms (${f(r.serverMs)})`,
    r.browserMs.length
      ? `console "Hoy" in Chromium, fresh context each: load median ${median(r.browserMs).toFixed(0)} ms (goal < 300), ${(median(r.bytes) / 1024).toFixed(1)} KB on the wire (goal < 300 KB); loads ${f(r.browserMs, 0)} ms`
      : `console "Hoy" in Chromium: not measured (install chromium)`,
  ];
}

if (import.meta.main) {
  await must(["bun", "run", "build"]);
  const seed = await cachedSeed(join(ROOT, ".bench"), { pendingOrders: 100_000, storedEvents: 1_000_000 }, (m) => process.stderr.write(`bench: ${m}\n`));
  for (const line of consoleLines(await consoleLoad(seed.dir, seed.meta.tenantId))) console.log(line);
}
