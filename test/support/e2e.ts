// End-to-end support: build the real binary once per test run, start it on a free loopback port
// with a temporary data dir, run its CLI.
import { afterAll } from "bun:test";
import { createHash } from "node:crypto";
import { connect } from "node:tls";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { PaymentEventBody } from "../../src/client/device-client";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist", "cuadra");

let built: Promise<string> | undefined;

/** `bun run build`, once per process (all test files share it). */
export function buildBinary(): Promise<string> {
  built ??= (async () => {
    const proc = Bun.spawn(["bun", "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const code = await proc.exited;
    if (code !== 0) throw new Error(`bun run build failed: ${await new Response(proc.stderr).text()}`);
    return BINARY;
  })();
  return built;
}

/** A payment event as a phone sends it, with a fresh event_id and the real clock; `over` replaces fields. */
export const phoneEvent = (over: Partial<PaymentEventBody> = {}): PaymentEventBody => ({
  event_id: crypto.randomUUID(),
  kind: "payment.received",
  occurred_at: Date.now() - 2_000,
  source: "yape",
  amount: 2500,
  currency: "PEN",
  ...over,
});

export const tempDataDir = (): string => mkdtempSync(join(tmpdir(), "cuadra-e2e-"));

/**
 * Temporary folders that are removed when the calling test file ends. Call once at the top of a
 * test file: `const temp = tempDirsRemovedAfterAll()`, then `temp.dataDir()` or `temp.mkdtemp(prefix)`.
 */
export function tempDirsRemovedAfterAll(): { dataDir: () => string; mkdtemp: (prefix: string) => string } {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  const track = (d: string) => (made.push(d), d);
  return { dataDir: () => track(tempDataDir()), mkdtemp: (prefix) => track(mkdtempSync(prefix)) };
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json commands). */
  json: any;
}

/** The environment the binary runs with in tests (English: test/support/setup.ts sets LANG), plus `over`. */
export const binaryEnv = (over: Record<string, string> = {}): Record<string, string | undefined> => ({ ...process.env, NODE_ENV: "production", ...over });

/** Runs `dist/cuadra ARGS --data-dir DIR` from another working directory. */
export async function cli(dataDir: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const proc = Bun.spawn([BINARY, ...args, "--data-dir", dataDir], {
    cwd: opts.cwd ?? tmpdir(),
    stdout: "pipe",
    stderr: "pipe",
    env: binaryEnv(opts.env),
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything the server printed on stdout so far. */
  output(): string;
  /** SIGTERM (default) or SIGKILL, then wait for the exit code. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<number>;
}

export interface StartOptions {
  dataDir?: string;
  /** Extra serve arguments; default is plain HTTP on 127.0.0.1 without auto-init. */
  args?: string[];
  tls?: boolean;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** Announce over multicast DNS (contract §17); off by default, so that tests do not flood the network. */
  mdns?: boolean;
  port?: number;
  timeoutMs?: number;
  /** Environment variables over binaryEnv()'s (e.g. LANG, TZ). */
  env?: Record<string, string>;
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const binary = await buildBinary();
  const dataDir = opts.dataDir ?? tempDataDir();
  const port = opts.port ?? (await freePort());
  const tlsArgs = opts.tls ? ["--tls", "auto"] : ["--tls", "off"];
  const mdnsArgs = opts.mdns ? [] : ["--no-mdns"];
  const host = opts.host ?? "127.0.0.1";
  const proc = Bun.spawn([binary, "serve", "--host", host, "--port", String(port), "--no-init", ...tlsArgs, ...mdnsArgs, ...(opts.args ?? []), "--data-dir", dataDir], {
    cwd: tmpdir(),
    stdout: "pipe",
    stderr: "pipe",
    env: binaryEnv(opts.env),
  });
  let out = "";
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
  })();
  const url = `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    try {
      const res = await fetch(`${url}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${await new Response(proc.stderr as ReadableStream).text()}`);
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server did not answer /healthz in time; output:\n${out}`);
    }
    await Bun.sleep(50);
  }
  return {
    url,
    port,
    dataDir,
    proc,
    output: () => out,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

/**
 * startServer for a test file that may leave boxes running when a test fails: every one still
 * running is killed when the file ends. Call once at the top: `const start = serversKilledAfterAll()`.
 */
export function serversKilledAfterAll(): (opts?: StartOptions) => Promise<RunningServer> {
  const running: RunningServer[] = [];
  afterAll(async () => {
    for (const s of running) if (s.proc.exitCode === null) await s.stop("SIGKILL");
  });
  return async (opts) => {
    const s = await startServer(opts);
    running.push(s);
    return s;
  };
}

/** SHA-256 of the certificate a TLS connection to the port is given: what a phone sees. */
export function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const der = socket.getPeerCertificate().raw;
      socket.destroy();
      resolve(createHash("sha256").update(der).digest("hex"));
    });
    socket.once("error", reject);
  });
}

/** `cuadra tenant create --name NAME` on the data dir; the new tenant's id. */
export async function createShop(dataDir: string, name: string): Promise<string> {
  const r = await cli(dataDir, ["tenant", "create", "--name", name, "--json"]);
  if (r.code !== 0) throw new Error(`tenant create failed: ${r.stderr}`);
  return r.json.tenant_id;
}

/** Polls `check` (every 50 ms) until it gives a value other than undefined, null or false, or fails after `ms` saying what was awaited. */
export async function until<T>(what: string, check: () => T | undefined | null | false, ms = 8_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await Bun.sleep(50);
  }
}
