// The command line's costs on a loaded box (issue 15), on a copy of the bench seed (100 000 pending
// orders, 1 000 000 stored events): serve's start-up check of the database (checkDatabase: a full
// quick_check up to 64 MiB, the box's own tables above), serve's start to the first /healthz answer
// on that database, one tick of the terminal's activity lines when nothing changed, and a CLI
// command (`device list`, whose human output reads the phones again) from start to exit.
// Standalone: `bun bench/cli.ts` (uses or builds the cached seed, like `bun run bench`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { activityReporter } from "../src/cli/activity";
import { checkDatabase } from "../src/cli/integrity";
import { systemClock } from "../src/clock";
import { openStore } from "../src/store/db";
import { freePort } from "../test/support/e2e";
import { cachedSeed, copyDataDir } from "./seed";

const ROOT = resolve(import.meta.dir, "..");
const BINARY = join(ROOT, "dist", "cuadra");

export interface CliCosts {
  checkMs: number[];
  serveStartMs: number[];
  idleTickUs: number;
  deviceListMs: number[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function cliCosts(seedDir: string, runs = 5): Promise<CliCosts> {
  const work = mkdtempSync(join(tmpdir(), "cuadra-bench-cli-"));
  const dataDir = join(work, "data");
  copyDataDir(seedDir, dataDir);
  try {
    const store = openStore(dataDir);
    const checkMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      checkDatabase(store);
      checkMs.push(performance.now() - t0);
    }
    const reporter = activityReporter({ store, clock: systemClock, lang: "es", write: () => {} });
    const ticks = 1000;
    const t0 = performance.now();
    for (let i = 0; i < ticks; i++) reporter.tick();
    const idleTickUs = ((performance.now() - t0) * 1000) / ticks;
    store.close();

    const serveStartMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const port = await freePort();
      const t = performance.now();
      const server = Bun.spawn([BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--tls", "off", "--no-init", "--no-mdns", "--data-dir", dataDir], {
        stdout: "ignore",
        stderr: "ignore",
      });
      try {
        for (let n = 0; !(await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok; n++) {
          if (n > 6000) throw new Error("the server did not start");
          await Bun.sleep(5);
        }
        serveStartMs.push(performance.now() - t);
      } finally {
        server.kill("SIGTERM");
        await server.exited;
      }
    }

    const deviceListMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const p = Bun.spawn([BINARY, "device", "list", "--data-dir", dataDir], { stdout: "ignore", stderr: "ignore" });
      if ((await p.exited) !== 0) throw new Error("device list failed");
      deviceListMs.push(performance.now() - t);
    }
    return { checkMs, serveStartMs, idleTickUs, deviceListMs };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function cliLines(r: CliCosts): string[] {
  const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
  return [
    `serve's start-up database check on the loaded database (its own tables; file in the OS cache): median ${median(r.checkMs).toFixed(1)} ms (${r.checkMs.map((x) => x.toFixed(1)).join(", ")})`,
    `serve on the loaded database, start to the first /healthz answer: median ${median(r.serveStartMs).toFixed(0)} ms (${f(r.serveStartMs)})`,
    `serve's activity lines, a tick with nothing new (mean of 1000): ${r.idleTickUs.toFixed(1)} µs`,
    `cuadra device list on the loaded database, start to exit: median ${median(r.deviceListMs).toFixed(0)} ms (${f(r.deviceListMs)})`,
  ];
}

if (import.meta.main) {
  const build = Bun.spawn(["bun", "run", "build"], { cwd: ROOT, stdout: "ignore", stderr: "inherit" });
  if ((await build.exited) !== 0) throw new Error("bun run build failed");
  const seed = await cachedSeed(join(ROOT, ".bench"), { pendingOrders: 100_000, storedEvents: 1_000_000 }, (m) => process.stderr.write(`bench: ${m}\n`));
  for (const line of cliLines(await cliCosts(seed.dir))) console.log(line);
}
