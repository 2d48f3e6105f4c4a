// `bun run bench`: how many signed payment events per second the built binary acknowledges (each
// one durable: synchronous=FULL, committed before the 201), in three scenarios, against a bare
// Bun.serve hello-world measured in the same run on the same machine:
// - empty: a new data dir holding only the shop and its phones;
// - orders: the same, plus the loaded database's 100 000 pending orders, and no history: every event
//   meets the same candidates and outcomes as in the loaded database, so loaded / orders isolates
//   what a month of history costs, and orders / empty what the pending orders and matching cost;
// - loaded: the same shop after a busy month, 100 000 pending orders and 1 000 000 stored events
//   (bench/seed.ts; cached under .bench/ and copied for every run).
// All receive the same signed events (bench/load.ts). wrk drives every server on loopback with the
// same threads, connections and duration; the events are pre-signed and fed to wrk by a Lua script.
//
// It also measures (bench/serve-costs.ts): the unsigned GET /device/v1/time against the same hello;
// 100-order syncs timed while the events load runs on the loaded database; start to the first
// /healthz and idle memory, of cuadra and of the hello; and, in process, the time the notification
// recogniser takes per text (bench/recogniser.ts); and the console's first "Hoy" on the loaded
// database, bytes and time (bench/console.ts); the command line's costs on it (bench/cli.ts). The hello is compiled like dist/cuadra. On
// the orders database a second events run has one webhook endpoint taking match.created on a
// loopback receiver: its rate against the first run, and when the last match's message arrived.
//
// Environment: BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 32),
// BENCH_THREADS (default 2), BENCH_RUNS (rounds of the scenarios, default 5), BENCH_EVENTS (signed
// events in the pool, default 200 000), BENCH_PENDING_ORDERS (default 100 000),
// BENCH_STORED_EVENTS (default 1 000 000), BENCH_SCENARIOS (default "empty,orders,loaded"),
// BENCH_WARMUP (seconds of unmeasured load before each run, default 3), BENCH_BACKLOG_DAYS (order
// syncs over a backlog, bench/backlog.ts: how many days back each order was created, default "1,3,30";
// "" skips them).
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { signRequest } from "../src/device/signing";
import { DB_FILE } from "../src/store/db";
import { freePort } from "../test/support/e2e";
import { LUA, planLoad, signLoad, type PendingOrder, type PlannedEvent } from "./load";
import { backlogSyncs } from "./backlog";
import { cachedSeed, copyDataDir, emptyLike, type SeedMeta } from "./seed";
import { recogniserTimes } from "./recogniser";
import { consoleLines, consoleLoad } from "./console";
import { cliCosts, cliLines } from "./cli";
import { announceTimes } from "./pairing";
import { compileHello, percentile, startAndIdle, syncWhile, webhookReceiver, type StartIdle, type SyncTimes } from "./serve-costs";

const ROOT = resolve(import.meta.dir, "..");
const BINARY = join(ROOT, "dist", "cuadra");
/** BENCH_SERVER replaces the binary, e.g. "bun --cpu-prof-md --cpu-prof-dir=/tmp/prof src/main.ts" to profile. */
const SERVER = process.env.BENCH_SERVER ? process.env.BENCH_SERVER.split(/\s+/) : [BINARY];
const CACHE = join(ROOT, ".bench");
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Seconds of load before each measured run, from their own slice of the pool (WARMUP_SHARE). */
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
const WARMUP_SHARE = 0.2;
/** Pre-signed events: more than a run can send, so that every request is a first receipt. */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
/** Of the pool after the warm-up, the share of the measured run; the second run of a scenario (loaded: order syncs alongside; orders: a webhook endpoint) plays the rest. */
const MEASURED_SHARE = 0.5;
/** Order syncs during the loaded database's second run: this many orders, one sync every SYNC_EVERY_MS. */
const SYNC_SIZE = 100;
const SYNC_EVERY_MS = 200;
/** Starts of each server for the start and idle-memory figures, and how long each stays idle. */
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const IDLE_MS = 3000;
const SPEC = {
  pendingOrders: Number(process.env.BENCH_PENDING_ORDERS ?? 100_000),
  storedEvents: Number(process.env.BENCH_STORED_EVENTS ?? 1_000_000),
};
const BACKLOG_DAYS = (process.env.BENCH_BACKLOG_DAYS ?? "1,3,30").split(",").filter((d) => d.trim() !== "").map(Number);
type Scenario = "empty" | "orders" | "loaded";
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? "empty,orders,loaded").split(",").map((s) => s.trim()) as Scenario[];
for (const s of SCENARIOS) {
  if (!["empty", "orders", "loaded"].includes(s)) throw new Error(`BENCH_SCENARIOS: unknown scenario "${s}" (empty, orders, loaded)`);
}

function log(msg: string) {
  process.stderr.write(`bench: ${msg}\n`);
}

async function run(cmd: string[], opts: { cwd?: string } = {}): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn(cmd, { cwd: opts.cwd ?? ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

async function must(cmd: string[]): Promise<string> {
  const r = await run(cmd);
  if (r.code !== 0) throw new Error(`${cmd.join(" ")} failed (${r.code}): ${r.err || r.out}`);
  return r.out;
}

async function ensureWrk(): Promise<string> {
  const found = Bun.which("wrk");
  if (found) return found;
  log("wrk is missing; installing the Debian package");
  let r = await run(["apt-get", "install", "-y", "wrk"]);
  if (r.code !== 0) {
    await run(["apt-get", "update"]);
    r = await run(["apt-get", "install", "-y", "wrk"]);
  }
  const after = Bun.which("wrk");
  if (!after) throw new Error(`could not install wrk (apt-get install -y wrk): ${r.err.trim().split("\n").pop()}`);
  return after;
}

async function waitFor(url: string, proc: { exitCode: number | null }): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet listening
    }
    if (proc.exitCode !== null) throw new Error(`server exited early (${proc.exitCode})`);
    if (Date.now() > deadline) throw new Error(`${url} did not answer in time`);
    await Bun.sleep(50);
  }
}

interface WrkResult {
  requests: number;
  perSecond: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
  errors: string | null;
}

function toMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "ms" ? v : m[2] === "s" ? v * 1000 : v * 60_000;
}

function parseWrk(out: string): WrkResult {
  const pct = (p: string) => toMs(new RegExp(`^\\s*${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
    perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50ms: pct("50"),
    p99ms: pct("99"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: /Socket errors: (.*)/.exec(out)?.[1] ?? null,
  };
}

async function wrk(bin: string, url: string, script?: string, seconds = DURATION_S): Promise<WrkResult> {
  const args = [bin, "-t", String(THREADS), "-c", String(CONNECTIONS), "-d", `${seconds}s`, "--latency", ...(script ? ["-s", script] : []), url];
  const r = await run(args);
  if (r.code !== 0) throw new Error(`wrk failed: ${r.err || r.out}`);
  return parseWrk(r.out);
}

async function benchHello(wrkBin: string, hello: string): Promise<WrkResult> {
  const port = await freePort();
  const server = Bun.spawn([hello, "--port", String(port)], { stdout: "ignore", stderr: "inherit" });
  try {
    await waitFor(`http://127.0.0.1:${port}/`, server);
    log(`wrk on a compiled bare Bun.serve hello for ${DURATION_S} s`);
    return await wrk(wrkBin, `http://127.0.0.1:${port}/`);
  } finally {
    server.kill("SIGKILL");
  }
}

interface RunResult {
  scenario: Scenario;
  run: number;
  wrk: WrkResult;
  /** Bench events on disk after the run, by match status. */
  statuses: Record<string, number>;
  stored: number;
  /** Server's peak resident memory (VmHWM), MB. */
  peakRssMb: number;
  /** Empty database: GET /device/v1/time (unsigned) on the same server after its events run. */
  time?: WrkResult;
  /** Loaded database: a second events run with 100-order syncs alongside. */
  withSyncs?: { wrk: WrkResult; syncs: SyncTimes };
  /** Orders database: a second events run with one webhook endpoint taking match.created. */
  withWebhook?: { wrk: WrkResult; matches: number; delivered: number; drainMs: number };
}

function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function benchCuadra(
  wrkBin: string,
  scenario: Scenario,
  run: number,
  seed: { dir: string; meta: SeedMeta },
  plan: PlannedEvent[],
): Promise<RunResult> {
  const work = mkdtempSync(join(tmpdir(), `cuadra-bench-${scenario}-`));
  const dataDir = join(work, "data");
  try {
    if (scenario === "loaded") copyDataDir(seed.dir, dataDir);
    else emptyLike(seed.dir, dataDir, { pendingOrders: scenario === "orders" });
    const seqBefore = scenario === "loaded" ? seed.meta.lastEventSeq : 0;
    // The shop's connector key for the order syncs: the seed stores only hashes of its own keys.
    const apiKey =
      scenario === "loaded" || scenario === "orders"
        ? (JSON.parse(await must([BINARY, "key", "create", "--tenant", seed.meta.tenantId, "--env", "live", "--json", "--data-dir", dataDir])) as { key: string }).key
        : null;
    const port = await freePort();
    const server = Bun.spawn(
      [...SERVER, "serve", "--host", "127.0.0.1", "--port", String(port), "--tls", "off", "--no-init", "--rate-limit-scale", "0", "--data-dir", dataDir],
      { stdout: "ignore", stderr: "inherit", env: { ...process.env, NODE_ENV: "production" } },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(`${base}/healthz`, server);
      const devices = seed.meta.devices.filter((x) => x.status === "active");

      // Signed now: X-Timestamp must be within 300 s of the server's clock during the run.
      const ts = Date.now();
      const sigFile = join(work, "events.tsv");
      writeFileSync(sigFile, signLoad(plan, devices, ts));
      // The first part of the pool warms the server up (JIT, SQLite's page cache), the rest is measured.
      const warmLast = WARMUP_S > 0 ? Math.floor(plan.length * WARMUP_SHARE) : 0;
      const warmScript = join(work, "warmup.lua");
      writeFileSync(warmScript, LUA(sigFile, THREADS, ts, 1, warmLast));
      const measuredLast = warmLast + Math.floor((plan.length - warmLast) * MEASURED_SHARE);
      const script = join(work, "events.lua");
      writeFileSync(script, LUA(sigFile, THREADS, ts, warmLast + 1, measuredLast));

      // One signed request by hand first: a broken script would otherwise measure 401s.
      const body = JSON.stringify({ event_id: `probe-${run}`, kind: "payment.received", occurred_at: ts, source: "yape", amount: 123, currency: "PEN" });
      const probe = await fetch(`${base}/device/v1/events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "idempotency-key": `probe-${run}`,
          "x-device-id": devices[0]!.id,
          "x-timestamp": String(ts),
          "x-signature-alg": "HMAC-SHA256",
          "x-signature": signRequest(devices[0]!.secret, String(ts), "POST", "/device/v1/events", body),
        },
        body,
      });
      if (probe.status !== 201) throw new Error(`probe event failed: ${probe.status} ${await probe.text()}`);

      if (warmLast > 0) {
        log(`run ${run}, ${scenario} database: warming up for ${WARMUP_S} s (not counted)`);
        await wrk(wrkBin, `${base}/device/v1/events`, warmScript, WARMUP_S);
      }
      log(`run ${run}, ${scenario} database: wrk on POST /device/v1/events for ${DURATION_S} s`);
      const result = await wrk(wrkBin, `${base}/device/v1/events`, script);
      const peak = peakRssMb(server.pid);
      let time: WrkResult | undefined;
      if (scenario === "empty") {
        log(`run ${run}, empty database: wrk on GET /device/v1/time for ${DURATION_S} s`);
        time = await wrk(wrkBin, `${base}/device/v1/time`);
      }
      let withSyncs: RunResult["withSyncs"];
      if (scenario === "loaded" && apiKey) {
        log(`run ${run}, loaded database: events again for ${DURATION_S} s, with a ${SYNC_SIZE}-order sync every ${SYNC_EVERY_MS} ms`);
        const rest = join(work, "events-rest.lua");
        writeFileSync(rest, LUA(sigFile, THREADS, ts, measuredLast + 1, plan.length));
        const load = wrk(wrkBin, `${base}/device/v1/events`, rest);
        const syncs = syncWhile(base, apiKey, SYNC_SIZE, SYNC_EVERY_MS, load, `r${run}`);
        withSyncs = { wrk: await load, syncs: await syncs };
      }
      let withWebhook: RunResult["withWebhook"];
      if (scenario === "orders" && apiKey) {
        log(`run ${run}, orders database: events again for ${DURATION_S} s, with a webhook endpoint on a loopback receiver`);
        const receiver = webhookReceiver();
        try {
          const created = await fetch(`${base}/connector/v1/webhooks`, {
            method: "POST",
            headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ url: receiver.url, events: ["match.created"] }),
          });
          if (created.status !== 201) throw new Error(`creating the webhook endpoint failed: ${created.status} ${await created.text()}`);
          const rest = join(work, "events-rest.lua");
          writeFileSync(rest, LUA(sigFile, THREADS, ts, measuredLast + 1, plan.length));
          const before = countMatches(dataDir);
          const w = await wrk(wrkBin, `${base}/device/v1/events`, rest);
          const runEnded = performance.now();
          const matches = countMatches(dataDir) - before;
          const drainMs = await receiver.until(matches, 120_000).then(() => performance.now() - runEnded);
          withWebhook = { wrk: w, matches, delivered: receiver.count(), drainMs };
        } finally {
          receiver.stop();
        }
      }
      server.kill("SIGTERM");
      await server.exited;
      const db = new Database(join(dataDir, DB_FILE), { readonly: true });
      const rows = db
        .query<{ s: string; n: number }, [number]>("SELECT match_status AS s, count(*) AS n FROM events WHERE seq > ? AND event_id NOT LIKE 'probe-%' GROUP BY 1")
        .all(seqBefore);
      db.close();
      const statuses = Object.fromEntries(rows.map((x) => [x.s, x.n]));
      return { scenario, run, wrk: result, statuses, stored: rows.reduce((a, x) => a + x.n, 0), peakRssMb: peak, time, withSyncs, withWebhook };
    } finally {
      if (server.exitCode === null) server.kill("SIGKILL");
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function countMatches(dataDir: string): number {
  const db = new Database(join(dataDir, DB_FILE), { readonly: true });
  try {
    return db.query<{ n: number }, []>("SELECT count(*) AS n FROM matches").get()!.n;
  } finally {
    db.close();
  }
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "?");
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  const started = Date.now();
  const wrkBin = await ensureWrk();
  log("building dist/cuadra");
  await must(["bun", "run", "build"]);
  const seed = await cachedSeed(CACHE, SPEC, log);
  const seedDb = new Database(join(seed.dir, DB_FILE), { readonly: true });
  const pending = seedDb
    .query<PendingOrder, []>("SELECT id, expected_amount, customer_name, security_code, created_at FROM orders WHERE status = 'pending' ORDER BY id")
    .all();
  seedDb.close();
  const plan = planLoad(EVENTS, seed.meta.devices.filter((x) => x.status === "active").length, pending);

  const measuredPool = plan.length - (WARMUP_S > 0 ? Math.floor(plan.length * WARMUP_SHARE) : 0);
  const results: RunResult[] = [];
  for (let run = 1; run <= RUNS; run++) for (const s of SCENARIOS) results.push(await benchCuadra(wrkBin, s, run, seed, plan));
  const helloDir = mkdtempSync(join(tmpdir(), "cuadra-bench-hello-"));
  const helloBin = await compileHello(helloDir);
  const hello = await benchHello(wrkBin, helloBin);
  // Start and idle memory: the hello, and cuadra on an initialised data dir (a box that restarts).
  log(`start to the first answer and idle memory, ${STARTS} starts each`);
  const starts: { hello: StartIdle[]; cuadra: StartIdle[]; noMdns: StartIdle[] } = { hello: [], cuadra: [], noMdns: [] };
  const idleDir = join(helloDir, "data");
  emptyLike(seed.dir, idleDir);
  for (let i = 0; i < STARTS; i++) {
    starts.hello.push(await startAndIdle([helloBin], "/", IDLE_MS));
    starts.cuadra.push(
      await startAndIdle([BINARY, "serve", "--host", "127.0.0.1", "--tls", "off", "--no-init", "--data-dir", idleDir], "/healthz", IDLE_MS),
    );
    starts.noMdns.push(
      await startAndIdle([BINARY, "serve", "--host", "127.0.0.1", "--tls", "off", "--no-init", "--no-mdns", "--data-dir", idleDir], "/healthz", IDLE_MS),
    );
  }
  log(`start to the first answer of the mDNS announcement, ${STARTS} starts`);
  const announced = await announceTimes(BINARY, STARTS);
  rmSync(helloDir, { recursive: true, force: true });
  let backlog: ReturnType<typeof backlogSyncs> = [];
  if (BACKLOG_DAYS.length > 0) {
    log(`order syncs over a backlog (${BACKLOG_DAYS.join(", ")} days back), in process on a copy of the loaded database`);
    const work = mkdtempSync(join(tmpdir(), "cuadra-bench-backlog-"));
    try {
      backlog = backlogSyncs(seed, work, BACKLOG_DAYS);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  log("the notification recogniser, in process");
  const rec = recogniserTimes();

  log("the console's first \"Hoy\" on a copy of the loaded database (server, and Chromium when installed)");
  const consoleFirstLoad = await consoleLoad(seed.dir, seed.meta.tenantId);

  log("the command line on a copy of the loaded database: serve's start-up check and start, an idle activity tick, device list");
  const cli = await cliCosts(seed.dir);

  const row = (name: string, w: WrkResult, extra = "") =>
    `| ${name.padEnd(40)} | ${fmt(w.perSecond).padStart(8)} | ${fmt(w.p50ms, 2).padStart(6)} | ${fmt(w.p99ms, 2).padStart(7)} | ${String(w.non2xx).padStart(7)} | ${extra}`;
  const statusText = (s: Record<string, number>) =>
    ["matched", "ambiguous", "unmatched", "duplicate"].map((k) => `${k} ${s[k] ?? 0}`).join(", ");
  const bySc = (s: Scenario) => results.filter((x) => x.scenario === s);
  const med = (s: Scenario, f: (w: WrkResult) => number) => median(bySc(s).map((x) => f(x.wrk)));
  // How much matching work the load finds in the loaded database: pending orders with the event's amount (any window).
  const byAmount = new Map<number, number>();
  for (const o of pending) byAmount.set(o.expected_amount, (byAmount.get(o.expected_amount) ?? 0) + 1);
  const cands = plan.filter((e) => e.kind !== "duplicate").map((e) => byAmount.get(e.amount) ?? 0);
  const kinds = plan.reduce<Record<string, number>>((a, e) => ((a[e.kind] = (a[e.kind] ?? 0) + 1), a), {});
  const c = seed.meta.counts;
  const times = results.flatMap((x) => (x.time ? [x.time] : []));
  const withSyncs = results.flatMap((x) => (x.withSyncs ? [x.withSyncs] : []));
  const syncMs = withSyncs.flatMap((x) => x.syncs.ms);
  const syncFailures = withSyncs.flatMap((x) => x.syncs.failures);
  const hooks = results.flatMap((x) => (x.withWebhook ? [x.withWebhook] : []));
  const lines = [
    "",
    `wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION_S}s on loopback after ${WARMUP_S} s of warm-up; ${(await run(["nproc"])).out.trim()} CPUs; Bun ${Bun.version}; ${RUNS} run(s) per scenario`,
    `loaded database: ${c["orders.pending"] ?? 0} pending orders (${(c["orders.matched"] ?? 0) + (c["orders.expired"] ?? 0) + (c["orders.cancelled"] ?? 0)} more matched, expired or cancelled), ` +
      `${seed.meta.lastEventSeq} stored events (${statusText(Object.fromEntries(Object.entries(c).filter(([k]) => k.startsWith("events.")).map(([k, v]) => [k.slice(7), v])))}), ` +
      `${(seed.meta.bytes / 1e6).toFixed(0)} MB; seeded in ${seed.meta.seconds} s`,
    `signed events in the pool: ${plan.length} (${kinds.order ?? 0} pay a pending order, ${kinds.counter ?? 0} counter sales, ${kinds.duplicate ?? 0} second-phone reports); ` +
      `pending orders with a new event's amount in the loaded db: ${fmt((100 * cands.filter((n) => n > 0).length) / cands.length, 1)} % of events have some, ` +
      `mean ${fmt(cands.reduce((a, n) => a + n, 0) / cands.length, 1)}, max ${Math.max(...cands)}`,
    "",
    "| server                                   | req/s    | p50 ms | p99 ms  | non-2xx | bench events on disk (warm-up included) by match status; server peak RSS",
    "|------------------------------------------|----------|--------|---------|---------|------",
    ...results.map((x) =>
      row(`cuadra events, ${x.scenario} db, run ${x.run}`, x.wrk, `${statusText(x.statuses)}; ${fmt(x.peakRssMb)} MB${x.wrk.requests > measuredPool ? `; ${x.wrk.requests - measuredPool}+ replays` : ""}`),
    ),
    ...results.flatMap((x) => (x.time ? [row(`cuadra GET /device/v1/time, run ${x.run}`, x.time)] : [])),
    ...results.flatMap((x) => (x.withSyncs ? [row(`cuadra events + syncs, loaded db, run ${x.run}`, x.withSyncs.wrk)] : [])),
    ...results.flatMap((x) =>
      x.withWebhook
        ? [row(`cuadra events + webhook, orders db, run ${x.run}`, x.withWebhook.wrk, `${x.withWebhook.matches} matches, ${x.withWebhook.delivered} match.created received, all ${fmt(x.withWebhook.drainMs)} ms after the run`)]
        : [],
    ),
    row("bare Bun.serve hello (compiled)", hello),
    "",
    ...SCENARIOS.map(
      (s) => `median ${s}: ${fmt(med(s, (w) => w.perSecond))} req/s, p50 ${fmt(med(s, (w) => w.p50ms), 2)} ms, p99 ${fmt(med(s, (w) => w.p99ms), 2)} ms`,
    ),
    ...(SCENARIOS.includes("empty") && SCENARIOS.includes("loaded")
      ? [
          `loaded / empty: throughput ${fmt((100 * med("loaded", (w) => w.perSecond)) / med("empty", (w) => w.perSecond), 1)} % (goal ≥ 80 %), ` +
            `p50 ×${fmt(med("loaded", (w) => w.p50ms) / med("empty", (w) => w.p50ms), 2)}, p99 ×${fmt(med("loaded", (w) => w.p99ms) / med("empty", (w) => w.p99ms), 2)}`,
        ]
      : []),
    ...(SCENARIOS.includes("orders") && SCENARIOS.includes("loaded")
      ? [
          `loaded / orders: throughput ${fmt((100 * med("loaded", (w) => w.perSecond)) / med("orders", (w) => w.perSecond), 1)} % ` +
            `(the same matching work, with and without a month of history)`,
        ]
      : []),
    ...(SCENARIOS.includes("loaded") && RUNS > 1
      ? SCENARIOS.filter((s) => s !== "loaded").map(
          (s) =>
            `loaded / ${s}, round by round: ` +
            Array.from({ length: RUNS }, (_, i) => {
              const of = (sc: Scenario) => results.find((x) => x.scenario === sc && x.run === i + 1)!.wrk.perSecond;
              return `${fmt((100 * of("loaded")) / of(s), 1)} %`;
            }).join(", "),
        )
      : []),
    ...SCENARIOS.map((s) => `${s} / hello: throughput ${fmt(med(s, (w) => w.perSecond) / hello.perSecond, 3)} (goal for signed ingest ≥ 0.10; p99 goal ≤ 10 ms)`),
    ...(times.length > 0
      ? [
          `GET /device/v1/time (empty db, after its events run): median ${fmt(median(times.map((w) => w.perSecond)))} req/s, p99 ${fmt(median(times.map((w) => w.p99ms)), 2)} ms; ` +
            `/ hello ${fmt(median(times.map((w) => w.perSecond)) / hello.perSecond, 3)} (goal ≥ 0.5)`,
        ]
      : []),
    ...(syncMs.length + syncFailures.length > 0
      ? [
          `loaded db, events again with a ${SYNC_SIZE}-order sync every ${SYNC_EVERY_MS} ms: events median ${fmt(median(withSyncs.map((x) => x.wrk.perSecond)))} req/s, ` +
            `p99 ${fmt(median(withSyncs.map((x) => x.wrk.p99ms)), 2)} ms; ${syncMs.length} syncs: p50 ${fmt(percentile(syncMs, 50), 1)} ms, ` +
            `p99 ${fmt(percentile(syncMs, 99), 1)} ms (goal ≤ 50), max ${fmt(Math.max(...syncMs), 1)} ms; ${syncFailures.length} failed${syncFailures.length ? `: ${syncFailures[0]}` : ""}`,
        ]
      : []),
    ...(hooks.length > 0
      ? [
          `orders db with one webhook endpoint (match.created): ${fmt(median(hooks.map((h) => h.wrk.perSecond)))} req/s, ` +
            `${fmt((100 * median(hooks.map((h) => h.wrk.perSecond))) / med("orders", (w) => w.perSecond), 1)} % of without (goal ≥ 90 %); ` +
            `matches per run ${hooks.map((h) => h.matches).join(", ")}, all delivered ${hooks.map((h) => fmt(h.drainMs)).join(", ")} ms after the run ended`,
        ]
      : []),
    `start to the first answer (median of ${STARTS}): cuadra /healthz ${fmt(median(starts.cuadra.map((x) => x.firstAnswerMs)), 1)} ms (goal ≤ 100), ` +
      `hello ${fmt(median(starts.hello.map((x) => x.firstAnswerMs)), 1)} ms; all cuadra: ${starts.cuadra.map((x) => fmt(x.firstAnswerMs)).join(", ")} ms`,
    `idle RSS after ${IDLE_MS / 1000} s (median): cuadra ${fmt(median(starts.cuadra.map((x) => x.idleRssMb)), 1)} MB (goal ≤ 60), hello ${fmt(median(starts.hello.map((x) => x.idleRssMb)), 1)} MB`,
    `with --no-mdns (median of ${STARTS}): start ${fmt(median(starts.noMdns.map((x) => x.firstAnswerMs)), 1)} ms, idle RSS ${fmt(median(starts.noMdns.map((x) => x.idleRssMb)), 1)} MB; ` +
      `start to the first mDNS answer for _cuadra._tcp (multicast-dns query on loopback): median ${fmt(median(announced))} ms, all ${announced.map((x) => fmt(x)).join(", ")} ms`,
    `responses counted by wrk exclude requests still in flight when it stopped (stored, but not counted)`,
    `notification recogniser (in process, ${rec.texts} texts: the fixture corpus and adversarial ones, 200 rounds): mean ${fmt(rec.meanUs, 1)} µs; ` +
      `slowest text ${fmt(rec.slowestMedianUs, 1)} µs median (goal ≤ 1 000 µs for any text): ${rec.slowest}; slowest single call ${fmt(rec.maxUs, 1)} µs`,
    ...consoleLines(consoleFirstLoad),
    ...cliLines(cli),
    ...(backlog.length > 0
      ? [
          "",
          "order sync over a backlog (one order created N days back, expiring tomorrow, on a common amount; in process, loaded db; the write lock is held throughout):",
          ...backlog.map(
            (b) => `  ${String(b.daysBack).padStart(3)} d back: ${fmt(b.ms)} ms, ${b.waiting} waiting payments re-evaluated, ${b.nowAmbiguous} turned ambiguous`,
          ),
        ]
      : []),
    ...results.filter((x) => x.wrk.errors).map((x) => `socket errors (${x.scenario}, run ${x.run}): ${x.wrk.errors}`),
    ...(hello.errors ? [`socket errors (hello): ${hello.errors}`] : []),
    `total bench time: ${fmt((Date.now() - started) / 1000, 1)} s`,
  ];
  console.log(lines.join("\n"));
  if (
    results.some((x) => x.wrk.non2xx > 0 || (x.withSyncs?.wrk.non2xx ?? 0) > 0 || (x.withWebhook?.wrk.non2xx ?? 0) > 0) ||
    syncFailures.length > 0 ||
    hooks.some((h) => h.delivered < h.matches)
  )
    process.exitCode = 1;
}

await main();
