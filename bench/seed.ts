// The loaded database of `bun run bench`: one shop that has been busy for a month. One tenant, its
// phones (activated as activation would: secrets sealed with the data dir's master key), 100 000
// pending orders and 1 000 000 stored payment events (matched, unmatched, ambiguous, duplicate; a
// match row for every matched one), spread over 30 days, six wallets, references, payer names.
//
// Seeding goes around the server on purpose (it would take hours through HTTP): openStore runs the
// real migrations, then raw prepared bun:sqlite statements fill the tables in a few big
// transactions on a connection with synchronous=OFF and no journal. The secondary indexes stay on
// while loading (see below), so every b-tree has the shape of one that grew row by row. The result
// is cached under .bench/, keyed by the seed version, the sizes and the migrations, and copied for
// every run.
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";
import { newTimeOrderedId } from "../src/ids";
import { DB_FILE, openStore } from "../src/store/db";
import { EMBEDDED } from "../src/store/migrations";
import { createSecretBox, loadMasterKey, MASTER_KEY_FILE } from "../src/store/secret-box";
import * as d from "./data";

/** Bump when the generated data changes shape: cached seeds of other versions are rebuilt. */
export const SEED_VERSION = 3;

export interface SeedSpec {
  pendingOrders: number;
  storedEvents: number;
}

export interface SeedDevice {
  id: string;
  secret: string;
  status: "active" | "revoked";
}

export interface SeedMeta {
  key: string;
  seededAt: number;
  tenantId: string;
  environment: "live";
  devices: SeedDevice[];
  spec: SeedSpec;
  /** Rows per table and status, as stored. */
  counts: Record<string, number>;
  lastEventSeq: number;
  seconds: number;
  bytes: number;
}

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
/** A cached seed is used for at most this long… */
export const SEED_MAX_AGE_MS = 6 * HOUR;
/** …and every pending order stays open for at least this long after seeding, so none expires in a run. */
const MIN_OPEN_AFTER_SEED_MS = 8 * HOUR;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const id20 = (r: d.Rand, prefix: string) => {
  let s = `${prefix}_`;
  for (let i = 0; i < 20; i++) s += BASE62[Math.floor(r() * 62)];
  return s;
};

export function seedKey(spec: SeedSpec): string {
  const h = new Bun.CryptoHasher("sha256");
  h.update(`v${SEED_VERSION}\n${spec.pendingOrders}\n${spec.storedEvents}\n`);
  for (const tag of Object.keys(EMBEDDED).sort()) h.update(`${tag}\n${EMBEDDED[tag]}\n`);
  return `seed-v${SEED_VERSION}-${spec.pendingOrders}o-${spec.storedEvents}e-${h.digest("hex").slice(0, 12)}`;
}

/** The cached seeded data dir for `spec`, built first when missing or older than SEED_MAX_AGE_MS. Never modify it: copy it. */
export async function cachedSeed(cacheRoot: string, spec: SeedSpec, log: (m: string) => void): Promise<{ dir: string; meta: SeedMeta }> {
  const key = seedKey(spec);
  const dir = join(cacheRoot, key);
  const metaFile = join(dir, "seed.json");
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as SeedMeta;
    const age = Date.now() - meta.seededAt;
    if (age >= 0 && age < SEED_MAX_AGE_MS) {
      log(`using cached seed ${dir} (${(age / 60000).toFixed(0)} min old, ${(meta.bytes / 1e6).toFixed(0)} MB)`);
      return { dir, meta };
    }
    log(`cached seed is ${(age / HOUR).toFixed(1)} h old (pending orders would start expiring): seeding again`);
  }
  mkdirSync(cacheRoot, { recursive: true });
  // Old seeds of any key go: each is a gigabyte.
  for (const name of new Bun.Glob("seed-*").scanSync({ cwd: cacheRoot, onlyFiles: false })) rmSync(join(cacheRoot, name), { recursive: true, force: true });
  const tmp = join(cacheRoot, `tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const meta = await seed(tmp, spec, key, log);
  writeFileSync(join(tmp, "seed.json"), JSON.stringify(meta, null, 1));
  renameSync(tmp, dir);
  return { dir, meta };
}

/** Copies a seeded data dir (database and master key) and flushes it, so that no write-back of the copy competes with the run's fsyncs. */
export function copyDataDir(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const f of [DB_FILE, MASTER_KEY_FILE]) {
    copyFileSync(join(from, f), join(to, f));
    const fd = openSync(join(to, f), "r+");
    fsyncSync(fd);
    closeSync(fd);
  }
}

/**
 * An empty data dir with the same tenant, keys and phones as the seed (same ids, same sealed
 * secrets, same master key), so that one set of signed requests serves every scenario. With
 * `pendingOrders`, it also holds the seed's pending orders as they are (the "orders" scenario).
 */
export function emptyLike(seedDir: string, to: string, opts: { pendingOrders?: boolean } = {}): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  copyFileSync(join(seedDir, MASTER_KEY_FILE), join(to, MASTER_KEY_FILE));
  const store = openStore(to); // migrations
  const db = store.sqlite;
  db.run("ATTACH DATABASE ? AS seed", [join(seedDir, DB_FILE)]);
  db.transaction(() => {
    for (const t of ["tenants", "api_keys", "activation_codes", "devices"]) db.run(`INSERT INTO main.${t} SELECT * FROM seed.${t}`);
    if (opts.pendingOrders) db.run("INSERT INTO main.orders SELECT * FROM seed.orders WHERE status = 'pending'");
  })();
  db.run("DETACH DATABASE seed");
  store.close();
}

async function seed(dir: string, spec: SeedSpec, key: string, log: (m: string) => void): Promise<SeedMeta> {
  const started = performance.now();
  const T0 = Date.now();
  const r = d.rng(0x5eed + SEED_VERSION);

  const store = openStore(dir); // the real migrations, WAL mode
  const box = await createSecretBox(loadMasterKey(dir));
  // Bench-only settings for this one connection (the only one): nothing here needs to survive a
  // crash. Out of WAL into no journal at all; back to WAL at the end.
  const db = store.sqlite;
  db.run("PRAGMA journal_mode = DELETE");
  db.run("PRAGMA journal_mode = OFF");
  db.run("PRAGMA synchronous = OFF");
  // The whole database in the page cache while loading (random index inserts never wait for a read).
  db.run(`PRAGMA cache_size = -${Math.round(Math.min(3e9, totalmem() / 4) / 1024)}`);
  db.run("PRAGMA temp_store = MEMORY");
  db.run("PRAGMA foreign_keys = OFF");

  const counts: Record<string, number> = {};
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);

  // ---- the shop and its phones
  const tenantId = id20(r, "ten");
  const env = "live" as const;
  const created = T0 - 90 * DAY;
  db.run(
    `INSERT INTO tenants (id, name, created_at, license_status, license_plan, license_max_devices, license_expires_at, updated_at)
     VALUES (?, 'Bodega Bench', ?, 'active', 'standard', 5, NULL, ?)`,
    [tenantId, created, created],
  );
  for (const e of ["live", "test"]) {
    db.run(`INSERT INTO api_keys (id, tenant_id, environment, key_hash, prefix, last4, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
      id20(r, "key"), tenantId, e, d.hex(r, 64), `sk_${e}_${d.hex(r, 4)}`, d.hex(r, 4), created,
    ]);
  }
  const devices: SeedDevice[] = [];
  for (let i = 0; i < 4; i++) {
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const status = i === 3 ? "revoked" : "active";
    const dev: SeedDevice = { id: id20(r, "dev"), secret, status };
    devices.push(dev);
    const at = created + i * DAY;
    db.run(
      `INSERT INTO devices (id, tenant_id, environment, label, platform, app_version, os_version, secret_enc, status, created_at, revoked_at, last_heartbeat_at, last_seen_at, health)
       VALUES (?, ?, ?, ?, 'android', '1.4.2', '14', ?, ?, ?, ?, ?, ?, NULL)`,
      [dev.id, tenantId, env, `Caja ${i + 1}`, await box.seal(secret), status, at, status === "revoked" ? T0 - 20 * DAY : null, T0 - 30_000, T0 - 5_000],
    );
    db.run(
      `INSERT INTO activation_codes (id, code_hash, tenant_id, environment, created_at, expires_at, used_at, device_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id20(r, "acd"), d.hex(r, 64), tenantId, env, at - 60_000, at + 840_000, at, dev.id],
    );
  }
  const active = devices.filter((x) => x.status === "active");

  // The indexes stay on while loading: rows go in as the server would insert them, so every b-tree
  // ends up shaped (page fill, splits) like one that grew over a month. Indexes built afterwards by
  // CREATE INDEX are packed full, and the first inserts of the run would split nearly every leaf they
  // touch (measured: twice the WAL frames per event), which no real box sees.

  // ---- orders (collected, inserted in primary-key order at the end)
  interface Order {
    id: string;
    amount: number;
    expected: number;
    status: "pending" | "matched" | "expired" | "cancelled";
    createdAt: number;
    expiresAt: number;
    customer: string | null;
    code: string | null;
    unique: boolean;
    matchId: string | null;
    updatedAt: number;
  }
  const orders: Order[] = [];
  let orderNo = 0;
  const cat = d.catalogue(r, 2500);
  const newOrder = (status: Order["status"], createdAt: number, expiresAt: number): Order => {
    const amount = d.orderAmount(r, cat);
    const unique = r() < 0.85;
    const o: Order = {
      id: `PED-${String(++orderNo).padStart(8, "0")}`,
      amount,
      expected: unique ? amount + (r() < 0.8 ? 0 : d.int(r, 1, 5)) : amount,
      status,
      createdAt,
      expiresAt,
      customer: r() < 0.85 ? d.fullName(r) : null,
      code: r() < 0.05 ? d.digits(r, 3) : null,
      unique,
      matchId: null,
      updatedAt: createdAt,
    };
    orders.push(o);
    count(`orders.${status}`);
    return o;
  };

  // Pending: created over the last days, each open at least MIN_OPEN_AFTER_SEED_MS after seeding.
  // Unique amounts take the smallest free k in 0–99 among pending orders (contract §10), as the server would.
  const held = new Set<number>();
  for (let i = 0; i < spec.pendingOrders; i++) {
    const x = r();
    const ttl = x < 0.55 ? DAY : x < 0.75 ? 2 * DAY : x < 0.9 ? 7 * DAY : 30 * DAY;
    const age = r() * Math.min(ttl - MIN_OPEN_AFTER_SEED_MS, 5 * DAY);
    const createdAt = Math.round(T0 - 60_000 - age);
    const o = newOrder("pending", createdAt, createdAt + ttl);
    if (o.unique) {
      let k = 0;
      while (k <= 99 && held.has(o.amount + k)) k++;
      if (k > 99) o.unique = false; // 409 unique_amount_unavailable in real life; the shop sends it plain
      else o.expected = o.amount + k;
    }
    if (!o.unique) o.expected = o.amount;
    held.add(o.expected);
  }
  // History: orders that expired unpaid or were cancelled over the month.
  for (let i = 0; i < spec.pendingOrders; i++) {
    const createdAt = Math.round(T0 - 32 * DAY + r() * 31 * DAY);
    newOrder("expired", createdAt, createdAt + DAY);
  }
  for (let i = 0; i < spec.pendingOrders / 5; i++) {
    const createdAt = Math.round(T0 - 30 * DAY + r() * 30 * DAY);
    const o = newOrder("cancelled", createdAt, createdAt + DAY);
    o.updatedAt = createdAt + d.int(r, 60_000, 6 * HOUR);
  }

  // ---- events in commit order; matched ones get their order and match row on the way
  const insertEvent = db.prepare(
    `INSERT INTO events (seq, event_id, device_id, tenant_id, environment, kind, source, amount, currency, payer_name, security_code,
       reference, occurred_at, received_at, raw, body_hash, response_status, response_body, match_status, order_id, duplicate_of)
     VALUES (?, ?, ?, ?, ?, 'payment.received', ?, ?, 'PEN', ?, ?, ?, ?, ?, ?, ?, 201, ?, ?, ?, ?)`,
  );
  const insertMatch = db.prepare(
    `INSERT INTO matches (id, tenant_id, environment, order_id, event_seq, event_id, device_id, amount, currency, source, payer_name,
       security_code, reference, occurred_at, matched_at, method) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PEN', ?, ?, ?, ?, ?, ?, ?)`,
  );
  interface Ev {
    seq: number;
    eventId: string;
    device: string;
    source: string;
    amount: number;
    payer: string | null;
    code: string | null;
    reference: string | null;
    occurredAt: number;
    duplicate: boolean;
  }
  const recent: Ev[] = [];
  const N = spec.storedEvents;
  const revokedAt = T0 - 20 * DAY;
  const BATCH = 100_000;
  let occurred = T0 - 30 * DAY;
  const step = (30 * DAY - 10 * 60_000) / N;
  let matchNo = 0;
  let lastMatchSeq = 0;
  for (let start = 1; start <= N; start += BATCH) {
    db.transaction(() => {
      for (let seq = start; seq < start + BATCH && seq <= N; seq++) {
        occurred += Math.round(-Math.log(1 - r()) * step); // Poisson arrivals over the month
        const occurredAt = Math.min(occurred, T0 - 60_000);
        const receivedAt = occurredAt + (r() < 0.9 ? d.int(r, 200, 4000) : d.int(r, 5_000, 2 * HOUR));
        const phones = occurredAt < revokedAt ? devices : active;
        let ev: Ev;
        let status: "matched" | "unmatched" | "ambiguous" | "duplicate";
        let orderId: string | null = null;
        let duplicateOf: string | null = null;
        const x = r();
        const orig = recent.length > 0 ? recent[recent.length - 1 - Math.floor(r() * Math.min(recent.length, 20))]! : null;
        if (x < 0.12 && orig && !orig.duplicate) {
          // Another phone on the same counter saw the same notification.
          const others = phones.filter((p) => p.id !== orig.device);
          ev = { ...orig, seq, eventId: d.uuid(r), device: d.pick(r, others).id, occurredAt: orig.occurredAt + d.int(r, -3000, 3000), duplicate: true };
          status = "duplicate";
          duplicateOf = orig.eventId;
        } else {
          const src = d.source(r);
          const { securityCode, reference } = d.walletExtras(r, src);
          const y = r();
          status = y < 0.4 ? "matched" : y < 0.435 ? "ambiguous" : "unmatched";
          let amount: number;
          let payer: string;
          if (status === "matched") {
            const createdAt = occurredAt - d.int(r, 0, 2 * HOUR);
            const o = newOrder("matched", createdAt, createdAt + DAY);
            o.matchId = newTimeOrderedId("mat", receivedAt); // as recordMatch makes them
            o.updatedAt = receivedAt;
            o.code = o.code === null || securityCode === null ? o.code : securityCode;
            amount = o.expected;
            payer = d.payerNameAs(r, src, o.customer ?? d.fullName(r));
            orderId = o.id;
          } else {
            amount = status === "ambiguous" || r() < 0.1 ? d.orderAmount(r, cat) : d.counterAmount(r);
            payer = d.payerNameAs(r, src, d.fullName(r));
          }
          ev = {
            seq,
            eventId: d.uuid(r),
            device: d.pick(r, phones).id,
            source: src,
            amount,
            payer: r() < 0.97 ? payer : null,
            code: securityCode,
            reference,
            occurredAt,
            duplicate: false,
          };
        }
        const receipt = { event_id: ev.eventId, status: "accepted", received_at: receivedAt, match: { status, order_id: orderId } };
        insertEvent.run(
          seq, ev.eventId, ev.device, tenantId, env, ev.source, ev.amount, ev.payer, ev.code, ev.reference, ev.occurredAt, receivedAt,
          JSON.stringify(d.rawNotification(ev.source, ev.payer ?? "Alguien", ev.amount, ev.code)), d.hex(r, 64),
          JSON.stringify(receipt), status, orderId, duplicateOf,
        );
        count(`events.${status}`);
        if (status === "matched") {
          const o = orders[orders.length - 1]!;
          insertMatch.run(
            o.matchId!, tenantId, env, o.id, seq, ev.eventId, ev.device, ev.amount, ev.source, ev.payer, ev.code, ev.reference,
            ev.occurredAt, receivedAt, r() < 0.95 ? "auto" : "manual",
          );
          matchNo++;
          lastMatchSeq = matchNo;
        }
        recent.push(ev);
        if (recent.length > 64) recent.splice(0, 32);
      }
    })();
    if ((start - 1) % (5 * BATCH) === 0) log(`seeding: ${Math.min(start + BATCH - 1, N)} / ${N} events (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  db.run(`INSERT INTO feed_acks (tenant_id, environment, through_seq, updated_at) VALUES (?, ?, ?, ?)`, [
    tenantId, env, Math.max(0, lastMatchSeq - 40), T0 - 60_000,
  ]);

  orders.sort((a, b) => (a.id < b.id ? -1 : 1));
  const insertOrder = db.prepare(
    `INSERT INTO orders (tenant_id, environment, id, amount, expected_amount, currency, status, created_at, expires_at, customer_name,
       security_code, unique_amount, metadata, match_id, updated_at) VALUES (?, ?, ?, ?, ?, 'PEN', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (const o of orders) {
      insertOrder.run(
        tenantId, env, o.id, o.amount, o.expected, o.status, o.createdAt, o.expiresAt, o.customer, o.code, o.unique ? 1 : 0,
        r() < 0.5 ? JSON.stringify({ channel: "web", items: d.int(r, 1, 4) }) : null, o.matchId, o.updatedAt,
      );
    }
  })();
  log(`seeding: ${orders.length} orders (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  if (db.query<{ journal_mode: string }, []>("PRAGMA journal_mode = WAL").get()?.journal_mode !== "wal") throw new Error("seed: could not return to WAL");
  store.close();
  const meta: SeedMeta = {
    key,
    seededAt: T0,
    tenantId,
    environment: env,
    devices,
    spec,
    counts,
    lastEventSeq: N,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    bytes: statSync(join(dir, DB_FILE)).size,
  };
  log(`seeded in ${meta.seconds} s: ${(meta.bytes / 1e6).toFixed(0)} MB, ${JSON.stringify(counts)}`);
  return meta;
}
