// `bun run bench`: how many signed payment events per second the built binary acknowledges (each
// one durable: synchronous=FULL, committed before the 201), against a bare Bun.serve hello-world
// measured in the same run on the same machine. wrk drives both, on loopback, with the same
// threads, connections and duration; the events are pre-signed and fed to wrk by a Lua script.
//
// Environment: BENCH_DURATION (seconds, default 10), BENCH_CONNECTIONS (default 64),
// BENCH_THREADS (default 2).
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { signRequest } from "../src/device/signing";

const ROOT = resolve(import.meta.dir, "..");
const BINARY = join(ROOT, "dist", "cuadra");
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
/** Pre-signed events: more than the run can send, so that every request is a first receipt. */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 400_000);

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

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
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

async function wrk(bin: string, url: string, script?: string): Promise<WrkResult> {
  const args = [bin, "-t", String(THREADS), "-c", String(CONNECTIONS), "-d", `${DURATION_S}s`, "--latency", ...(script ? ["-s", script] : []), url];
  const r = await run(args);
  if (r.code !== 0) throw new Error(`wrk failed: ${r.err || r.out}`);
  return parseWrk(r.out);
}

/** The body the Lua script builds for event `i`; signed here over exactly these bytes. */
const eventBody = (i: number, ts: string) =>
  `{"event_id":"bench-${i}","kind":"payment.received","occurred_at":${ts},"source":"yape","amount":${1000 + i},"currency":"PEN","payer_name":"Cliente ${i}"}`;

const LUA = (sigFile: string, deviceId: string, ts: string, total: number) => `
-- Pre-signed POST /device/v1/events: thread k sends events k, k+T, k+2T, ... (unique ids).
local threads = {}
local counter = 1
function setup(thread)
  thread:set("first", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
function init(args)
  sigs = {}
  for line in io.lines("${sigFile}") do sigs[#sigs + 1] = line end
  step = ${THREADS}
  i = first
end
function request()
  local n = i
  i = i + step
  if n > ${total} then n = ((n - 1) % ${total}) + 1 end
  local id = "bench-" .. n
  local body = '{"event_id":"' .. id .. '","kind":"payment.received","occurred_at":${ts},"source":"yape","amount":' .. (1000 + n) .. ',"currency":"PEN","payer_name":"Cliente ' .. n .. '"}'
  return wrk.format("POST", "/device/v1/events", {
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = id,
    ["X-Device-Id"] = "${deviceId}",
    ["X-Timestamp"] = "${ts}",
    ["X-Signature-Alg"] = "HMAC-SHA256",
    ["X-Signature"] = sigs[n],
  }, body)
end
`;

async function benchCuadra(wrkBin: string, work: string): Promise<{ result: WrkResult; stored: number }> {
  const dataDir = join(work, "data");
  const cli = (...args: string[]) => must([BINARY, ...args, "--data-dir", dataDir, "--json"]);
  const tenant = JSON.parse(await cli("tenant", "create", "--name", "Bench"));
  const code = JSON.parse(await cli("code", "create", "--tenant", tenant.tenant_id, "--env", "live"));
  const port = await freePort();
  const server = Bun.spawn(
    [BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--tls", "off", "--no-init", "--rate-limit-scale", "0", "--data-dir", dataDir],
    { stdout: "ignore", stderr: "inherit", env: { ...process.env, NODE_ENV: "production" } },
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/healthz`, server);
    const act = await fetch(`${base}/device/v1/activation`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ activation_code: code.code, device_label: "bench", app_version: "1", platform: "android", os_version: "1" }),
    });
    if (act.status !== 201) throw new Error(`activation failed: ${act.status} ${await act.text()}`);
    const { device_id, secret } = (await act.json()) as { device_id: string; secret: string };

    const ts = String(Date.now());
    log(`pre-signing ${EVENTS} events`);
    const sigs: string[] = new Array(EVENTS);
    for (let i = 1; i <= EVENTS; i++) sigs[i - 1] = signRequest(secret, ts, "POST", "/device/v1/events", eventBody(i, ts));
    const sigFile = join(work, "sigs.txt");
    writeFileSync(sigFile, sigs.join("\n") + "\n");
    const script = join(work, "events.lua");
    writeFileSync(script, LUA(sigFile, device_id, ts, EVENTS));

    // One signed request by hand first: a broken script would otherwise measure 401s.
    const probe = await fetch(`${base}/device/v1/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "idempotency-key": "probe-1",
        "x-device-id": device_id,
        "x-timestamp": ts,
        "x-signature-alg": "HMAC-SHA256",
        "x-signature": signRequest(secret, ts, "POST", "/device/v1/events", eventBody(0, ts).replace("bench-0", "probe-1")),
      },
      body: eventBody(0, ts).replace("bench-0", "probe-1"),
    });
    if (probe.status !== 201) throw new Error(`probe event failed: ${probe.status} ${await probe.text()}`);

    log(`wrk on POST /device/v1/events for ${DURATION_S} s`);
    const result = await wrk(wrkBin, `${base}/device/v1/events`, script);
    server.kill("SIGTERM");
    await server.exited;
    const db = new Database(join(dataDir, "cuadra.db"), { readonly: true });
    const stored = db.query<{ n: number }, []>("SELECT count(*) AS n FROM events WHERE event_id LIKE 'bench-%'").get()!.n;
    db.close();
    return { result, stored };
  } finally {
    if (server.exitCode === null) server.kill("SIGKILL");
  }
}

async function benchHello(wrkBin: string): Promise<WrkResult> {
  const port = await freePort();
  const server = Bun.spawn(
    ["bun", "-e", `Bun.serve({ hostname: "127.0.0.1", port: ${port}, fetch: () => new Response("hello") }); console.log("up")`],
    { stdout: "ignore", stderr: "inherit" },
  );
  try {
    await waitFor(`http://127.0.0.1:${port}/`, server);
    log(`wrk on a bare Bun.serve hello for ${DURATION_S} s`);
    return await wrk(wrkBin, `http://127.0.0.1:${port}/`);
  } finally {
    server.kill("SIGKILL");
  }
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "?");

async function main() {
  const started = Date.now();
  const wrkBin = await ensureWrk();
  log("building dist/cuadra");
  await must(["bun", "run", "build"]);
  const work = mkdtempSync(join(tmpdir(), "cuadra-bench-"));
  try {
    const cuadra = await benchCuadra(wrkBin, work);
    const hello = await benchHello(wrkBin);
    const c = cuadra.result;
    const lines = [
      "",
      `wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION_S}s on loopback; ${(await run(["nproc"])).out.trim()} CPUs; Bun ${Bun.version}`,
      "",
      "| server                                         | req/s    | p50 ms | p99 ms | non-2xx |",
      "|------------------------------------------------|----------|--------|--------|---------|",
      `| cuadra POST /device/v1/events (signed, durable) | ${fmt(c.perSecond).padStart(8)} | ${fmt(c.p50ms, 2).padStart(6)} | ${fmt(c.p99ms, 2).padStart(6)} | ${String(c.non2xx).padStart(7)} |`,
      `| bare Bun.serve hello                            | ${fmt(hello.perSecond).padStart(8)} | ${fmt(hello.p50ms, 2).padStart(6)} | ${fmt(hello.p99ms, 2).padStart(6)} | ${String(hello.non2xx).padStart(7)} |`,
      "",
      `ratio cuadra / hello: throughput ${fmt((100 * c.perSecond) / hello.perSecond, 1)} %, p50 ×${fmt(c.p50ms / hello.p50ms, 1)}, p99 ×${fmt(c.p99ms / hello.p99ms, 1)}`,
      `events on disk after the run: ${cuadra.stored}; responses counted by wrk: ${c.requests} (requests still in flight when wrk stopped are stored but not counted)${c.requests > EVENTS ? `; more than ${EVENTS} pre-signed, so some were replays` : ""}`,
      ...(c.errors ? [`socket errors (cuadra): ${c.errors}`] : []),
      ...(hello.errors ? [`socket errors (hello): ${hello.errors}`] : []),
      `total bench time: ${fmt((Date.now() - started) / 1000, 1)} s`,
    ];
    console.log(lines.join("\n"));
    if (c.non2xx > 0) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
