// What `serve` costs before any payment: a compiled bare Bun.serve hello (the yardstick of every
// ratio), start to the first /healthz answer, resident memory once idle, and order syncs timed while
// the events load runs (issue 10's goals: idle RSS ≤ 60 MB, first /healthz ≤ 100 ms, a 100-order
// sync's p99 ≤ 50 ms under full event load), and a loopback webhook receiver (issue 11).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../test/support/e2e";

/** Compiles a bare Bun.serve hello the way dist/cuadra is compiled, so both pay the same runtime start. */
export async function compileHello(workDir: string): Promise<string> {
  const src = join(workDir, "hello.ts");
  const out = join(workDir, "hello");
  writeFileSync(
    src,
    `const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("hello") });
`,
  );
  const p = Bun.spawn(["bun", "build", "--compile", "--bytecode", src, "--outfile", out], { stdout: "pipe", stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(`compiling the bare hello failed: ${await new Response(p.stderr).text()}`);
  return out;
}

export interface StartIdle {
  /** Spawn to the first 200 from `path`, ms. */
  firstAnswerMs: number;
  /** VmRSS after `idleMs` with no request, MB. */
  idleRssMb: number;
}

function rssMb(pid: number, field: "VmRSS"): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Starts `cmd` (which must take `--port N` last-but-one), polls `path` every millisecond, then waits idle and reads VmRSS. */
export async function startAndIdle(cmd: string[], path: string, idleMs: number): Promise<StartIdle> {
  const port = await freePort();
  const t0 = performance.now();
  const server = Bun.spawn([...cmd, "--port", String(port)], { stdout: "ignore", stderr: "ignore", env: { ...process.env, NODE_ENV: "production" } });
  try {
    let firstAnswerMs = NaN;
    while (performance.now() - t0 < 15_000) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}${path}`)).status === 200) {
          firstAnswerMs = performance.now() - t0;
          break;
        }
      } catch {
        // not listening yet
      }
      if (server.exitCode !== null) throw new Error(`${cmd[0]} exited early (${server.exitCode})`);
      await Bun.sleep(1);
    }
    await Bun.sleep(idleMs);
    return { firstAnswerMs, idleRssMb: rssMb(server.pid, "VmRSS") };
  } finally {
    server.kill("SIGKILL");
    await server.exited;
  }
}

export interface SyncTimes {
  ms: number[];
  failures: string[];
}

/**
 * POST /connector/v1/orders with `size` new orders every `everyMs` until `until` resolves: what a
 * shop's software does while the phones' payments stream in. Amounts are random whole soles, so some
 * orders find waiting payments and re-evaluate them (contract §10), as in a real shop.
 */
export async function syncWhile(base: string, apiKey: string, size: number, everyMs: number, until: Promise<unknown>, tag: string): Promise<SyncTimes> {
  let done = false;
  void until.finally(() => (done = true));
  const out: SyncTimes = { ms: [], failures: [] };
  let n = 0;
  while (!done) {
    const now = Date.now();
    const orders = Array.from({ length: size }, () => ({
      id: `SYNC-${tag}-${++n}`,
      amount: 100 * (5 + Math.floor(Math.random() * 300)),
      currency: "PEN",
      created_at: now,
      expires_at: now + 3600_000,
    }));
    const t0 = performance.now();
    const res = await fetch(`${base}/connector/v1/orders`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ orders }),
    });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (res.status === 200 || res.status === 201) out.ms.push(ms);
    else out.failures.push(`${res.status} ${body.slice(0, 200)}`);
    await Bun.sleep(Math.max(0, everyMs - ms));
  }
  return out;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** A webhook receiver on loopback that counts match.created messages (webhook-id deduplicates retries). */
export function webhookReceiver() {
  const seen = new Set<string>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      if (body.includes('"match.created"')) seen.add(req.headers.get("webhook-id") ?? "");
      return new Response(null, { status: 204 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    count: () => seen.size,
    async until(n: number, timeoutMs: number): Promise<void> {
      const deadline = performance.now() + timeoutMs;
      while (seen.size < n) {
        if (performance.now() > deadline) throw new Error(`webhook receiver got ${seen.size} of ${n} match.created in ${timeoutMs} ms`);
        await Bun.sleep(5);
      }
    },
    stop: () => server.stop(true),
  };
}
