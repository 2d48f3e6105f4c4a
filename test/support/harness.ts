// HTTP tests through app.handle: a fresh data dir, a manual clock, captured log lines.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, type App } from "../../src/app";
import { ManualClock } from "../../src/clock";
import { createRateLimiters } from "../../src/http/rate-limit";
import { jsonLogger } from "../../src/log";
import { openStore, readerOnly, type Store } from "../../src/store/db";
import { startWriter, type Writer } from "../../src/store/writer";
import { createSecretBox, loadMasterKey } from "../../src/store/secret-box";
import { createTenant } from "../../src/tenants/service";
import { recognise, type Recognise } from "../../src/notifications/recogniser";

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  body: any;
  text: string;
}

export interface RequestOptions {
  /** An object is sent as JSON; a string or bytes are sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Client address as Bun.serve would report it. */
  ip?: string;
}

export interface TestApp {
  app: App;
  /**
   * A connection of the tests' own, as a CLI command has: fixtures (tenants, codes) and inspection.
   * The app reads through another, read-only one, and writes only through `writer`, as in serve.
   */
  store: Store;
  /** The app's writer thread (contract §14), the same as serve's. */
  writer: Writer;
  /** The app's own connection, read-only as in serve. */
  reader: Store;
  clock: ManualClock;
  dataDir: string;
  logs: string[];
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Sends a prepared Request (for exact control of the bytes). */
  send(req: Request, ip?: string): Promise<TestResponse>;
  /** A tenant with a live and a test key. */
  tenant(name?: string): { tenant_id: string; name: string; keys: { live: string; test: string } };
  /** Waits for the writer thread's writes, then removes the data dir. */
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: ManualClock;
  rateLimitScale?: number;
  publicUrl?: string;
  /** The fingerprint `serve` would give in activation answers (contract §17); null by default, as with --tls off. */
  tlsFingerprint?: string;
  /** The writer's busy_timeout: how long a write waits for a lock held by another connection. */
  busyTimeoutMs?: number;
  /** The wallet formats the app reads (contract §16); the box's own by default. */
  recognise?: Recognise;
}

interface Answered {
  method: string;
  path: string;
  status: number;
  code: string;
}

/**
 * The answers that /docs/json does not document on their route: status and code must appear among
 * the operation's problem examples. Paths that are no route (404 not_found) are skipped, and a 405
 * counts as documented when any operation of the path lists it.
 */
export async function undocumentedAnswers(app: App, answered: Answered[]): Promise<string[]> {
  if (answered.length === 0) return [];
  const doc = (await (await app.handle(new Request("http://localhost/docs/json"))).json()) as { paths: Record<string, Record<string, any>> };
  const routes = Object.entries(doc.paths).map(([template, item]) => ({
    regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    item,
  }));
  const codesOf = (op: any, status: number): string[] =>
    Object.values<any>(op?.responses?.[String(status)]?.content?.["application/problem+json"]?.examples ?? {}).map((e) => e.value.code);
  const out = new Set<string>();
  for (const a of answered) {
    const route = routes.find((r) => r.regex.test(a.path));
    if (!route || a.path.startsWith("/__test/")) continue; // no route, or a route that tests mount for themselves
    const ops = a.status === 405 ? Object.values(route.item) : [route.item[a.method]];
    if (!ops.some((op) => codesOf(op, a.status).includes(a.code))) out.add(`${a.method.toUpperCase()} ${a.path}: ${a.status} ${a.code}`);
  }
  return [...out];
}

export async function readResponse(res: Response): Promise<TestResponse> {
  const text = await res.text();
  let body: any = text;
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("json") && text.length > 0) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * Runs `during` while a second connection (a CLI command, say) holds the database's write lock:
 * what a request meets when the writer waits past its busy_timeout (start the app with a short
 * one, makeTestApp({ busyTimeoutMs: 50 })).
 */
export async function whileDatabaseLocked<T>(store: Store, during: () => Promise<T>): Promise<T> {
  const other = new Database(store.path);
  other.run("BEGIN IMMEDIATE");
  try {
    return await during();
  } finally {
    other.run("ROLLBACK");
    other.close();
  }
}

export async function makeTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "cuadra-test-"));
  const store = openStore(dataDir);
  const clock = opts.clock ?? new ManualClock();
  const logs: string[] = [];
  const writer = await startWriter(dataDir, { busyTimeoutMs: opts.busyTimeoutMs });
  const reader = readerOnly(openStore(dataDir));
  const app = createApp({
    writer,
    store: reader,
    clock,
    logger: jsonLogger((l) => logs.push(l)),
    limiters: createRateLimiters(clock, opts.rateLimitScale ?? 1),
    secretBox: await createSecretBox(loadMasterKey(dataDir)),
    config: { publicUrl: opts.publicUrl, tlsFingerprint: opts.tlsFingerprint ?? null },
    recognise: opts.recognise ?? recognise,
  });
  // Every problem answer the tests provoke, checked at close() against the route's documentation.
  const answered: Answered[] = [];
  const send = async (req: Request, ip = "127.0.0.1") => {
    const res = await readResponse(await app.handle(req, ip));
    if (res.headers.get("content-type")?.includes("problem+json") && typeof res.body?.code === "string") {
      answered.push({ method: req.method.toLowerCase(), path: new URL(req.url).pathname, status: res.status, code: res.body.code });
    }
    return res;
  };
  return {
    app,
    store,
    writer,
    reader,
    clock,
    dataDir,
    logs,
    send,
    request(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      let body: BodyInit | undefined;
      if (o.body !== undefined) {
        if (typeof o.body === "string" || o.body instanceof Uint8Array) body = o.body as BodyInit;
        else {
          body = JSON.stringify(o.body);
          if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
        }
      }
      return send(new Request(`http://localhost${path}`, { method, headers, body }), o.ip);
    },
    tenant: (name = "Bodega Rosa") => createTenant(store.db, clock, name),
    async close() {
      const undocumented = await undocumentedAnswers(app, answered);
      await writer.close();
      reader.close();
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
      // A route answered an error its OpenAPI operation does not list: document it (http/openapi.ts).
      if (undocumented.length > 0) throw new Error(`undocumented answers:\n${undocumented.join("\n")}`);
    },
  };
}
