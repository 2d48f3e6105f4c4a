// End to end over the built binary (dist/cuadra), started from another directory on a free loopback
// port with a temporary data dir: what a merchant and an admin actually run.
import { parsePairingUri } from "../src/pairing/uri";
import { decodeTerminalQr } from "./support/qr";
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../src/clock";
import { hmacSha256Hex, sha256Hex } from "../src/ids";
import { openStore } from "../src/store/db";
import { addNews, createTenant } from "../src/tenants/service";
import { BINARY, buildBinary, cli, freePort, tempDirsRemovedAfterAll } from "./support/e2e";

// Each test starts processes of a 110 MB binary; on a loaded CI machine that takes seconds.
// (bunfig.toml's `[test] timeout` is not a Bun setting: without this the default is 5 s.)
setDefaultTimeout(60_000);

beforeAll(async () => {
  await buildBinary();
}, 180_000);

// Every temporary folder made here is removed at the end.
const { dataDir: tempDataDir, mkdtemp: mkdtempSync } = tempDirsRemovedAfterAll();

// ---- helpers

interface Server {
  url: string;
  port: number;
  dataDir: string;
  proc: ReturnType<typeof Bun.spawn>;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and waits for the exit code. */
  stop(signal?: "SIGTERM" | "SIGINT" | "SIGKILL"): Promise<number>;
}

/** Polls `check` until it returns a value other than undefined, for at most `ms`. */
async function within<T>(ms: number, what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}${last ? ` (last error: ${last})` : ""}`);
    await Bun.sleep(20);
  }
}

const insecure = { tls: { rejectUnauthorized: false } } as RequestInit;

/** Starts `dist/cuadra serve ARGS` (plain HTTP on 127.0.0.1 unless args say otherwise) and waits for /healthz. */
async function serve(opts: { dataDir?: string; args?: string[]; cwd?: string; tls?: boolean; env?: Record<string, string> } = {}): Promise<Server> {
  const port = await freePort();
  const dataDir = opts.dataDir;
  const args = ["serve", "--host", "127.0.0.1", "--port", String(port), ...(opts.tls ? [] : ["--tls", "off"]), ...(opts.args ?? []), ...(dataDir ? ["--data-dir", dataDir] : [])];
  const proc = Bun.spawn([BINARY, ...args], {
    cwd: opts.cwd ?? tmpdir(),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NODE_ENV: "production", ...(opts.env ?? {}) },
  });
  let out = "";
  let err = "";
  const decoder = () => new TextDecoder();
  const outDone = (async () => {
    const d = decoder();
    for await (const c of proc.stdout as ReadableStream<Uint8Array>) out += d.decode(c, { stream: true });
  })();
  const errDone = (async () => {
    const d = decoder();
    for await (const c of proc.stderr as ReadableStream<Uint8Array>) err += d.decode(c, { stream: true });
  })();
  const url = `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`;
  await within(20_000, `server answers /healthz (stdout: ${out} stderr: ${err})`, async () => {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${err}`);
    const res = await fetch(`${url}/healthz`, insecure);
    return res.status === 200 ? true : undefined;
  }).catch((e) => {
    proc.kill("SIGKILL");
    throw e;
  });
  return {
    url,
    port,
    dataDir: dataDir ?? join(opts.cwd ?? tmpdir(), "cuadra-data"),
    proc,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      const code = await proc.exited;
      await Promise.all([outDone, errDone]);
      return code;
    },
  };
}

async function json(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function activate(url: string, code: string) {
  const res = await fetch(`${url}/device/v1/activation`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ activation_code: code, device_label: "Caja 1", app_version: "1.0.0", platform: "android", os_version: "14" }),
    ...insecure,
  });
  return { status: res.status, body: await json(res) };
}

/** A signed heartbeat, written from contract §5 (not with the project's client). */
async function heartbeat(url: string, deviceId: string, secret: string) {
  const path = "/device/v1/heartbeat";
  const body = JSON.stringify({ battery_level: 80, queue_depth: 0 });
  const ts = String(Date.now());
  const signature = hmacSha256Hex(secret, `${ts}\nPOST\n${path}\n${sha256Hex(body)}`);
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-device-id": deviceId, "x-timestamp": ts, "x-signature-alg": "HMAC-SHA256", "x-signature": signature },
    body,
    ...insecure,
  });
  return { status: res.status, body: await json(res) };
}

/** Raw HTTP/1.1 over a socket: write `parts` (functions run between writes), read one response. */
function rawHttp(port: number, head: string, body: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sock = netConnect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete answer: ${JSON.stringify(received)}`));
    }, 10_000);
    sock.on("data", (d) => {
      received += d.toString();
      const end = received.indexOf("\r\n\r\n");
      const len = /content-length:\s*(\d+)/i.exec(received)?.[1];
      if (end >= 0 && len !== undefined && Buffer.byteLength(received) >= end + 4 + Number(len)) {
        clearTimeout(timer);
        sock.destroy();
        resolve({ status: Number(received.slice(9, 12)), text: received });
      }
    });
    sock.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    sock.on("connect", () => {
      sock.write(head);
      for (const b of body) sock.write(b);
    });
  });
}

const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false, servername: "localhost" }, () => {
      const fp = sock.getPeerCertificate().fingerprint256;
      sock.end();
      resolve(fp);
    });
    sock.on("error", reject);
  });
}

const logLines = (s: Server) =>
  s
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));

// ---- tests

describe("first run, as in the README: `cuadra serve` in an empty directory", () => {
  // In a terminal `serve` alone names the shop "My shop"; a piped stdout needs --name to ask for it.
  test("initialises ./cuadra-data, prints URL, docs URL, tenant, keys, code and the certificate fingerprint it serves", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "cuadra-firstrun-"));
    const s = await serve({ cwd, tls: true, args: ["--name", "My shop"] });
    const out = s.stdout();
    expect(existsSync(join(cwd, "cuadra-data", "cuadra.db"))).toBe(true);
    expect(out).toMatch(/Shop "My shop" created \(tenant ten_[0-9A-Za-z]{20}\)/);
    expect(out).toMatch(/live: sk_live_[0-9A-Za-z]{32,}/);
    expect(out).toMatch(/test: sk_test_[0-9A-Za-z]{32,}/);
    const code = /First phone:\nActivation code: ([A-Z]{4}-[A-Z]{4}-[A-Z]{4})/.exec(out)?.[1];
    expect(code).toBeDefined();
    // contract §17: the first serve gives the pairing URI, as text and as a QR code, with the address it listens on.
    const uri = /Pairing URI: (cuadra:\/\/pair\?\S+)/.exec(out)?.[1];
    expect(parsePairingUri(uri!)).toEqual({
      url: `https://127.0.0.1:${s.port}`,
      code: code!,
      fp: (await servedFingerprint(s.port)).replaceAll(":", "").toLowerCase(),
    });
    const [phone, browser] = out.split("The shop's console, in a browser:");
    expect(decodeTerminalQr(phone!)).toBe(uri!);
    // contract §18: and a sign-in link for the console, with its QR code, that opens a session once.
    const link = /\n  (https:\/\/\S+\/console\/login\?token=\S+)\n/.exec(browser!)?.[1];
    expect(decodeTerminalQr(browser!)).toBe(link!);
    expect(link).toStartWith(`https://127.0.0.1:${s.port}/console/login?token=`);
    const opened = await fetch(link!, { redirect: "manual", tls: { rejectUnauthorized: false } } as RequestInit);
    expect(opened.status).toBe(303);
    expect(opened.headers.get("set-cookie")).toMatch(/^cuadra_session=[A-Za-z0-9]{40}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=2592000; Secure$/);
    expect(out).toContain(`Console: https://127.0.0.1:${s.port}/console/`);
    expect(out).toContain(`Phones pair with: https://127.0.0.1:${s.port}, announced on the local network as "Cuadra My shop" (_cuadra._tcp)`);
    expect(out).toContain(`URL:  https://127.0.0.1:${s.port}`);
    expect(out).toContain(`Docs: https://127.0.0.1:${s.port}/docs`);
    const printed = /SHA-256 fingerprint: ([0-9A-F:]{95})/.exec(out)?.[1];
    expect(printed).toBeDefined();
    expect(await servedFingerprint(s.port)).toBe(printed!);

    // The printed activation code links a phone over HTTPS.
    const act = await activate(s.url, code!);
    expect(act.status).toBe(201);
    expect(act.body.tenant_name).toBe("My shop");
    expect(act.body.api_base_url).toBe(`https://127.0.0.1:${s.port}/device/v1`);

    expect(await s.stop("SIGINT")).toBe(0);

    // The second start keeps the tenant and the certificate and prints no keys.
    const again = await serve({ cwd, tls: true, args: ["--name", "My shop"] });
    expect(again.stdout()).not.toContain("sk_live_");
    expect(again.stdout()).toContain(printed!);
    expect(await servedFingerprint(again.port)).toBe(printed!);
    expect(await again.stop()).toBe(0);
    const tenants = await cli(join(cwd, "cuadra-data"), ["tenant", "list", "--json"]);
    expect(tenants.json.map((t: any) => t.name)).toEqual(["My shop"]);
  });

  test("--tls-cert/--tls-key serve the given certificate; --tls off serves plain HTTP", async () => {
    const certDir = tempDataDir();
    const first = await serve({ dataDir: certDir, tls: true, args: ["--no-init"] });
    const generated = /SHA-256 fingerprint: ([0-9A-F:]{95})/.exec(first.stdout())![1]!;
    expect(await first.stop()).toBe(0);
    const s = await serve({
      dataDir: tempDataDir(),
      tls: true,
      args: ["--no-init", "--tls-cert", join(certDir, "tls", "cert.pem"), "--tls-key", join(certDir, "tls", "key.pem")],
    });
    expect(await servedFingerprint(s.port)).toBe(generated);
    expect(s.stdout()).toContain(generated);
    expect(await s.stop()).toBe(0);
    expect(existsSync(join(s.dataDir, "tls"))).toBe(false); // no self-signed one was made

    const plain = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
    expect(plain.stdout()).not.toContain("fingerprint");
    expect((await fetch(`${plain.url}/healthz`)).status).toBe(200);
    expect(await plain.stop()).toBe(0);
  });
});

describe("a running server", () => {
  test("health, request ids and one JSON log line per request, without secrets", async () => {
    const s = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
    const res = await fetch(`${s.url}/healthz`, { headers: { "x-request-id": "e2e-health-1", authorization: "Bearer sk_live_SECRETSECRETSECRETSECRETSECRETSECRET" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", version: expect.any(String) });
    expect(res.headers.get("x-request-id")).toBe("e2e-health-1");
    expect(res.headers.get("date")).toBeTruthy();
    expect(res.headers.get("date")!.split(",").length).toBe(2); // one Date header, not two
    await within(1000, "the request is logged", () => (logLines(s).some((l) => l.request_id === "e2e-health-1") ? true : undefined));
    const line = logLines(s).find((l) => l.request_id === "e2e-health-1");
    expect(line).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/healthz", status: 200 });
    expect(s.stdout()).not.toContain("SECRETSECRET");
    expect(await s.stop()).toBe(0);
  });

  test("/docs names no other host and everything it names loads from the binary", async () => {
    const s = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
    const page = await fetch(`${s.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const refs = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      const u = new URL(ref, `${s.url}/docs`);
      expect(u.origin).toBe(s.url);
      const res = await fetch(u);
      expect({ ref, status: res.status }).toEqual({ ref, status: 200 });
      const text = await res.text();
      expect(text.length).toBeGreaterThan(10_000);
      expect(text).not.toMatch(/sourceMappingURL=https?:/);
    }
    const spec = await fetch(`${s.url}/docs/json`);
    expect(spec.status).toBe(200);
    const doc = await spec.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/healthz", "/device/v1/activation"]));
    expect(await s.stop()).toBe(0);
  });

  test("413 is decided before the body arrives: on Content-Length alone, and on a chunked body over a real socket", async () => {
    const s = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
    // Headers only: the 2 MiB body is never sent, yet the answer comes.
    const declared = await rawHttp(s.port, "POST /connector/v1/orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n", []);
    expect(declared.status).toBe(413);
    expect(declared.text).toContain('"max_bytes":1048576');
    // Chunked, no Content-Length, never finished: 5 KiB sent to the 4 KiB activation route.
    const head = "POST /device/v1/activation HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const chunked = await rawHttp(s.port, head, [chunk('{"device_label":"' + "x".repeat(2500)), chunk("y".repeat(2500))]);
    expect(chunked.status).toBe(413);
    expect(chunked.text).toContain('"code":"payload_too_large"');
    expect(chunked.text).toContain('"max_bytes":4096');
    // The same with a Host of one to three characters (such a request is re-addressed for routing).
    for (const host of ["a", "ab", "abc"]) {
      const short = await rawHttp(s.port, head.replace("Host: localhost", `Host: ${host}`), [chunk('{"device_label":"' + "x".repeat(2500)), chunk("y".repeat(2500))]);
      expect([host, short.status]).toEqual([host, 413]);
    }
    expect(await s.stop()).toBe(0);
  });

  test("a port already in use is exit 1 with a message saying what to do", async () => {
    const s = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
    const err = await refusedServe(s.port, tempDataDir());
    expect(err).toContain("already in use");
    expect(err).toContain("--port");
    expect(await s.stop()).toBe(0);
  });
});

/** A second `serve` that must be refused: exit 1 with one line on stderr, which it returns. */
async function refusedServe(port: number, dataDir: string): Promise<string> {
  const proc = Bun.spawn([BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--tls", "off", "--no-init", "--data-dir", dataDir], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await proc.exited).toBe(1);
  const err = await new Response(proc.stderr).text();
  expect(err.trim().split("\n")).toHaveLength(1);
  return err;
}

describe("one server per data folder (contract §14: one writer)", () => {
  test("a second serve on the same data folder is exit 1 saying which folder; after a SIGKILL of the first, a new one starts", async () => {
    const dir = tempDataDir();
    const s = await serve({ dataDir: dir, args: ["--no-init"] });
    const err = await refusedServe(await freePort(), dir);
    expect(err).toContain("already running on the data folder");
    expect(err).toContain(dir);
    // The first server is untouched.
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    // The lock goes with the process, however it ends.
    await s.stop("SIGKILL");
    const again = await serve({ dataDir: dir, args: ["--no-init"] });
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    expect(await again.stop()).toBe(0);
  });
});

describe("the command line against a running server", () => {
  test("changes made with the CLI take effect on the running server within 1 s, without a restart", async () => {
    const dir = tempDataDir();
    const s = await serve({ dataDir: dir, args: ["--no-init"] });

    // A shop and a code created by the CLI after the server started are usable at once.
    const init = await cli(dir, ["init", "--name", "Bodega Rosa", "--json"]);
    expect(init.code).toBe(0);
    const tenantId = init.json.tenant_id;
    const act = await within(1000, "the CLI's activation code works", async () => {
      const a = await activate(s.url, init.json.activation_code.code);
      return a.status === 201 ? a : undefined;
    });
    const { device_id: deviceId, secret } = act.body;
    expect((await heartbeat(s.url, deviceId, secret)).status).toBe(200);

    // Suspend the license: the phone is refused within 1 s; reactivate: served again within 1 s.
    expect((await cli(dir, ["license", "set", "--tenant", tenantId, "--status", "suspended", "--json"])).code).toBe(0);
    const refused = await within(1000, "heartbeat answers 403 license_suspended", async () => {
      const hb = await heartbeat(s.url, deviceId, secret);
      return hb.status === 403 ? hb : undefined;
    });
    expect(refused.body).toMatchObject({ code: "license_suspended", license: { status: "suspended", reason: "suspended" } });
    expect((await cli(dir, ["license", "set", "--tenant", tenantId, "--status", "active"])).code).toBe(0);
    await within(1000, "heartbeat answers 200 again", async () => ((await heartbeat(s.url, deviceId, secret)).status === 200 ? true : undefined));

    // An expiry in the past reads as suspended, reason expired.
    expect((await cli(dir, ["license", "set", "--tenant", tenantId, "--expires-at", String(Date.now() - 1000)])).code).toBe(0);
    const expired = await within(1000, "heartbeat answers license expired", async () => {
      const hb = await heartbeat(s.url, deviceId, secret);
      return hb.status === 403 ? hb : undefined;
    });
    expect(expired.body.license).toMatchObject({ status: "suspended", reason: "expired" });
    expect((await cli(dir, ["license", "set", "--tenant", tenantId, "--expires-at", "none"])).code).toBe(0);
    await within(1000, "heartbeat answers 200 again", async () => ((await heartbeat(s.url, deviceId, secret)).status === 200 ? true : undefined));

    // News added by the CLI reaches the phone's next heartbeat.
    const news = await cli(dir, ["news", "add", "--tenant", tenantId, "--title", "Feriado", "--body", "Cerramos el lunes", "--json"]);
    expect(news.code).toBe(0);
    const withNews = await within(1000, "heartbeat carries the news", async () => {
      const hb = await heartbeat(s.url, deviceId, secret);
      return hb.body.news?.some((n: any) => n.id === news.json.news_id) ? hb : undefined;
    });
    expect(withNews.body.news.find((n: any) => n.id === news.json.news_id)).toMatchObject({ title: "Feriado", body: "Cerramos el lunes", level: "info" });

    // Revoke the shop's live key: the connector answers 401 within 1 s; the test key still works.
    const connector = (key: string) => fetch(`${s.url}/connector/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
    const liveKey: string = init.json.keys.live;
    const testKey: string = init.json.keys.test;
    expect((await connector(liveKey)).status).toBe(200);
    const keys = await cli(dir, ["key", "list", "--tenant", tenantId, "--json"]);
    const liveKeyId = keys.json.find((k: any) => k.environment === "live").key_id;
    expect((await cli(dir, ["key", "revoke", liveKeyId, "--json"])).code).toBe(0);
    const unauthorized = await within(1000, "the connector refuses the revoked key", async () => {
      const res = await connector(liveKey);
      return res.status === 401 ? res : undefined;
    });
    expect((await unauthorized.json()).code).toBe("api_key_invalid");
    expect(unauthorized.headers.get("www-authenticate")).toStartWith("Bearer");
    expect((await connector(testKey)).status).toBe(200);

    // Revoke the phone: refused within 1 s.
    const revoke = await cli(dir, ["device", "revoke", deviceId, "--json"]);
    expect(revoke.json).toEqual({ device_id: deviceId, status: "revoked" });
    const gone = await within(1000, "heartbeat answers 403 device_revoked", async () => {
      const hb = await heartbeat(s.url, deviceId, secret);
      return hb.status === 403 ? hb : undefined;
    });
    expect(gone.body.code).toBe("device_revoked");

    // A backup taken while the server runs is a consistent database with the data.
    const file = join(dir, "backup.db");
    const backup = await cli(dir, ["backup", "--to", file, "--json"]);
    expect(backup.json).toEqual({ file, bytes: expect.any(Number) });
    const copy = new Database(file, { readonly: true });
    expect(copy.query("SELECT status FROM devices WHERE id = ?").get(deviceId)).toEqual({ status: "revoked" });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    copy.close();
    expect(await s.stop()).toBe(0);
  });

  test("data survives a restart, device secrets included (master.key stays in the data dir)", async () => {
    const dir = tempDataDir();
    const s = await serve({ dataDir: dir, args: ["--no-init"] });
    const t = await cli(dir, ["tenant", "create", "--name", "Persistente", "--json"]);
    const code = await cli(dir, ["code", "create", "--tenant", t.json.tenant_id, "--env", "test", "--json"]);
    const act = await activate(s.url, code.json.code);
    expect(act.status).toBe(201);
    expect(await s.stop("SIGTERM")).toBe(0);

    const again = await serve({ dataDir: dir, args: ["--no-init"] });
    expect((await heartbeat(again.url, act.body.device_id, act.body.secret)).status).toBe(200);
    const devices = await cli(dir, ["device", "list", "--tenant", t.json.tenant_id, "--json"]);
    expect(devices.json).toEqual([expect.objectContaining({ device_id: act.body.device_id, environment: "test", status: "active" })]);
    expect((await cli(dir, ["tenant", "list", "--json"])).json).toEqual([expect.objectContaining({ tenant_id: t.json.tenant_id, name: "Persistente" })]);
    // The used code stays used.
    expect((await activate(again.url, code.json.code)).body.code).toBe("activation_code_used");
    expect(await again.stop()).toBe(0);
  });
});

describe("the CLI of the binary", () => {
  test("every command's --json document, exit codes 0/1/2 and one-line errors", async () => {
    const dir = tempDataDir();
    const init = await cli(dir, ["init", "--name", "Tienda Uno", "--json"]);
    expect(init.code).toBe(0);
    expect(init.stderr).toBe("");
    const tenantId: string = init.json.tenant_id; // read before toMatchObject, which (Bun 1.4.5) writes its matchers into the object
    expect(tenantId).toMatch(/^ten_[0-9A-Za-z]{20}$/);
    expect(init.json).toMatchObject({ name: "Tienda Uno", keys: { live: expect.stringMatching(/^sk_live_/), test: expect.stringMatching(/^sk_test_/) } });

    const created = await cli(dir, ["tenant", "create", "--name", "Tienda Dos", "--json"]);
    expect(Object.keys(created.json).sort()).toEqual(["keys", "name", "tenant_id"]);
    const list = await cli(dir, ["tenant", "list", "--json"]);
    expect(list.json.map((t: any) => Object.keys(t).sort())).toEqual([
      ["created_at", "name", "tenant_id"],
      ["created_at", "name", "tenant_id"],
    ]);

    const key = await cli(dir, ["key", "create", "--tenant", tenantId, "--env", "live", "--json"]);
    expect(Object.keys(key.json).sort()).toEqual(["environment", "key", "key_id", "tenant_id"]);
    const keys = await cli(dir, ["key", "list", "--tenant", tenantId, "--json"]);
    expect(keys.json).toHaveLength(3);
    expect(keys.stdout).not.toContain(key.json.key);
    const revoked = await cli(dir, ["key", "revoke", key.json.key_id, "--json"]);
    expect(revoked.json).toEqual({ key_id: key.json.key_id, revoked_at: expect.any(Number) });

    expect((await cli(dir, ["license", "show", "--tenant", tenantId, "--json"])).json).toEqual({
      status: "active",
      reason: null,
      plan: "standard",
      max_devices: 5,
      devices_in_use: 0,
      expires_at: null,
    });
    expect((await cli(dir, ["license", "set", "--tenant", tenantId, "--max-devices", "2", "--plan", "mini", "--json"])).json).toMatchObject({ plan: "mini", max_devices: 2 });
    expect((await cli(dir, ["news", "add", "--tenant", tenantId, "--title", "Hola", "--body", "Bienvenidos", "--level", "critical", "--json"])).json).toEqual({
      news_id: expect.stringMatching(/^nws_/),
      published_at: expect.any(Number),
    });
    const backupFile = join(dir, "b.db");
    expect((await cli(dir, ["backup", "--to", backupFile, "--json"])).json).toEqual({ file: backupFile, bytes: expect.any(Number) });
    const version = await cli(dir, ["version", "--json"]);
    expect(version.json).toEqual({ version: JSON.parse(readFileSync(join(import.meta.dir, "../package.json"), "utf8")).version });

    // Usage errors: 2; failures: 1; each one stderr line and nothing on stdout.
    for (const [args, expected] of [
      [["tenant", "create"], 2],
      [["key", "create", "--tenant", tenantId, "--env", "prod"], 2],
      [["nonsense"], 2],
      [["serve", "--tls", "maybe"], 2],
      [["license", "set", "--tenant", tenantId, "--bogus"], 2],
      [["key", "revoke", "key_doesnotexist"], 1],
      [["license", "show", "--tenant", "ten_doesnotexist"], 1],
      [["init", "--name", "again"], 1],
      [["backup", "--to", backupFile], 1],
    ] as [string[], number][]) {
      const r = await cli(dir, [...args, "--json"]);
      expect({ args, code: r.code, stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({ args, code: expected, stdout: "", lines: 1 });
    }
    for (const cmd of [["serve"], ["init"], ["tenant", "create"], ["key", "revoke"], ["license", "set"], ["news", "add"], ["backup"], ["version"]]) {
      const r = await cli(dir, [...cmd, "--help"]);
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 0 });
      expect(r.stdout).toContain("Usage: cuadra " + cmd.join(" "));
    }
  });

  test("CUADRA_DATA_DIR picks the data dir, and ./cuadra-data is relative to where it runs", async () => {
    const dir = tempDataDir();
    const viaEnv = Bun.spawn([BINARY, "tenant", "create", "--name", "Env", "--json"], { cwd: tmpdir(), env: { ...process.env, CUADRA_DATA_DIR: dir }, stdout: "pipe" });
    expect(await viaEnv.exited).toBe(0);
    expect((await cli(dir, ["tenant", "list", "--json"])).json.map((t: any) => t.name)).toEqual(["Env"]);
    const cwd = mkdtempSync(join(tmpdir(), "cuadra-cwd-"));
    const env = { ...process.env };
    delete env.CUADRA_DATA_DIR;
    // A command that makes a shop makes the folder (contract §1: "created on first use"); one that
    // only reads never does (test/e2e-cli.test.ts).
    const local = Bun.spawn([BINARY, "tenant", "create", "--name", "Local", "--json"], { cwd, env, stdout: "pipe" });
    expect(await local.exited).toBe(0);
    expect(existsSync(join(cwd, "cuadra-data", "cuadra.db"))).toBe(true);
  });

  test("a long --json document is printed whole through a pipe", async () => {
    const dir = tempDataDir();
    const store = openStore(dir);
    const clock = new ManualClock();
    for (let i = 0; i < 1500; i++) createTenant(store.db, clock, `Tienda número ${i} de la avenida principal`);
    store.close();
    // Through a shell pipe: process.exit() once cut this at the pipe's 64 KiB (Bun.spawn's own pipe did not show it).
    const proc = Bun.spawn(["sh", "-c", `"${BINARY}" tenant list --json --data-dir "${dir}" | cat`], { cwd: tmpdir(), stdout: "pipe" });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(150_000);
    expect(JSON.parse(stdout)).toHaveLength(1500);
  });
});

describe("upgrades", () => {
  test("a data dir made by an older schema is migrated by the binary started from another directory, data intact", async () => {
    const dir = tempDataDir();
    const clock = new ManualClock();
    const old = openStore(dir, { migrateUpTo: 1 });
    const t = createTenant(old.db, clock, "Bodega de 2025");
    const n = addNews(old.db, clock, t.tenant_id, { title: "Antigua", body: "Del esquema viejo", level: "info" });
    const oldTables = old.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
    old.close();
    expect(oldTables).not.toContain("devices");
    expect(oldTables).not.toContain("orders");

    const cwd = mkdtempSync(join(tmpdir(), "cuadra-elsewhere-"));
    const listed = await cli(dir, ["tenant", "list", "--json"], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.json).toEqual([{ tenant_id: t.tenant_id, name: "Bodega de 2025", created_at: clock.now() }]);

    const s = await serve({ dataDir: dir, cwd, args: ["--no-init"] });
    // The newest tables exist and work: a phone activates (devices, activation_codes) and sees the old news.
    const code = await cli(dir, ["code", "create", "--tenant", t.tenant_id, "--env", "live", "--json"], { cwd });
    const act = await activate(s.url, code.json.code);
    expect(act.status).toBe(201);
    const hb = await heartbeat(s.url, act.body.device_id, act.body.secret);
    expect(hb.status).toBe(200);
    expect(hb.body.news).toEqual([expect.objectContaining({ id: n.news_id, title: "Antigua" })]);
    expect(await s.stop()).toBe(0);

    const db = new Database(join(dir, "cuadra.db"), { readonly: true });
    const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(["tenants", "api_keys", "news", "devices", "events", "orders", "matches", "feed_acks"]));
    expect(db.query("SELECT count(*) AS n FROM api_keys WHERE tenant_id = ?").get(t.tenant_id)).toEqual({ n: 2 });
    db.close();
  });
});

describe("stopping", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal}: logs stopping and stopped, exits 0 within 5 s`, async () => {
      const s = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
      const t0 = Date.now();
      const code = await s.stop(signal);
      expect(code).toBe(0);
      expect(Date.now() - t0).toBeLessThan(5000);
      const msgs = logLines(s).map((l) => l.msg);
      expect(msgs.slice(-2)).toEqual(["stopping", "stopped"]);
    });
  }

  test("a request in flight when SIGTERM arrives is finished, then the server exits 0", async () => {
    const s = await serve({ dataDir: tempDataDir(), args: ["--no-init"] });
    const sock = netConnect(s.port, "127.0.0.1");
    await new Promise((r) => sock.once("connect", r));
    let received = "";
    sock.on("data", (d) => (received += d.toString()));
    const closed = new Promise((r) => sock.once("close", r));
    const body = JSON.stringify({ activation_code: "BCDF-GHJK-LMNP", device_label: "Caja", app_version: "1", platform: "android", os_version: "14" });
    sock.write(`POST /device/v1/activation HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    sock.write(body.slice(0, 10)); // the request is in flight: headers and part of the body
    // Until the server has read those bytes, the connection is idle to it and a stop may close it:
    // the request is in flight only once the server is reading its body.
    await Bun.sleep(200);
    s.proc.kill("SIGTERM");
    await within(3000, "the server starts stopping", () => (logLines(s).some((l) => l.msg === "stopping") ? true : undefined));
    sock.write(body.slice(10));
    await closed;
    expect(received).toStartWith("HTTP/1.1 404");
    expect(received).toContain("activation_code_unknown");
    expect(await s.proc.exited).toBe(0);
  });

  test("a stop during first-run start-up (initialising, making the certificate) still exits 0", async () => {
    const port = await freePort();
    const proc = Bun.spawn([BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", tempDataDir()], { stdout: "pipe", stderr: "pipe" });
    // As soon as it has printed anything (it is initialising), stop it.
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });
});

describe("serve on an empty data dir without a terminal", () => {
  test("creates no shop it was not asked for, and says how to make one", async () => {
    const s = await serve({ dataDir: tempDataDir() });
    expect(s.stdout()).not.toContain("sk_live_");
    expect(s.stderr()).toContain("no shop yet");
    expect(await s.stop()).toBe(0);
    const tenants = await cli(s.dataDir, ["tenant", "list", "--json"]);
    expect(tenants.json).toEqual([]);
    const init = await cli(s.dataDir, ["init", "--name", "Later", "--json"]);
    expect(init.code).toBe(0);
  });
});
