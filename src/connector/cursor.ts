// Opaque cursors (contract §11, §12, §19, §20): a position in the matches feed, the events view or
// the orders list, bound to the tenant and environment that received it. A position is the row's
// seq, which counts every shop's rows; so that a cursor reveals nothing of other shops (how many
// matches they have), the seq is encrypted: one AES block, the seq and eight zero bytes, under a key
// made for the kind of cursor and the scope from the box's cursor key (box_settings, migration 0009).
// Decrypted with another scope's key the zero bytes come out wrong, so a cursor of another tenant,
// environment or feed, or anything we did not produce, is `400 invalid_cursor`. Encryption is
// deterministic: one spelling per position, so an acknowledged cursor comes back as it was sent.
// An order's position (§19, newest first) is (created_at, order id), too long for one block: it is
// sealed with a synthetic IV instead (orderPositions below), with the same properties.
import type { Database } from "bun:sqlite";
import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from "node:crypto";
import { DomainError } from "../errors";
import { perConnection, type Db, type Store } from "../store/db";

export type CursorKind = "match" | "event" | "message" | "notification";

export interface CursorScope {
  tenantId: string;
  environment: string;
}

/** One letter per kind before the block, so that a cursor says which feed it is for. */
const PREFIX: Record<CursorKind, string> = { match: "m", event: "e", message: "w", notification: "n" };
/** A prefix letter and 16 bytes as base64url. */
const CURSOR = /^[mewn][A-Za-z0-9_-]{22}$/;

export interface Cursors {
  encode(kind: CursorKind, scope: CursorScope, seq: number): string;
  /** The position, or null when the text is not a cursor of this kind and scope. */
  parse(kind: CursorKind, scope: CursorScope, text: string): number | null;
  /** The position, or 400 invalid_cursor naming `field`. */
  decode(kind: CursorKind, scope: CursorScope, text: string, field: string): number;
  /** Positions in the orders list (contract §19). */
  orders: {
    encode(scope: CursorScope, position: OrderPosition): string;
    parse(scope: CursorScope, text: string): OrderPosition | null;
    decode(scope: CursorScope, text: string, field: string): OrderPosition;
  };
}

/**
 * A place in the orders list, newest first: the list goes on with the orders that sort after it,
 * by created_at descending, then id descending (ties need a rule that never changes).
 */
export interface OrderPosition {
  createdAt: number;
  id: string;
}

/** Before every order: the position of a list's start (every stored created_at is smaller). */
export const ORDERS_START: OrderPosition = { createdAt: Number.MAX_SAFE_INTEGER, id: "" };

/** Order ids are at most 64 characters of ASCII (contract §9), padded to 64 bytes in a cursor. */
const ORDER_ID_BYTES = 64;
/** "o", then 16 bytes of synthetic IV and 8 + 64 bytes of sealed position, as base64url. */
const ORDER_CURSOR = /^o[A-Za-z0-9_-]{118}$/;

/** A codec for cursors under `key` (32 bytes). */
export function cursorCodec(key: Uint8Array): Cursors {
  const keys = new Map<string, Buffer>();
  const keyFor = (kind: CursorKind | "order" | "order-mac", scope: CursorScope): Buffer => {
    const id = `${kind}\u0000${scope.tenantId}\u0000${scope.environment}`;
    let k = keys.get(id);
    if (!k) keys.set(id, (k = createHmac("sha256", key).update(id).digest()));
    return k;
  };
  const parse = (kind: CursorKind, scope: CursorScope, text: string): number | null => {
    if (!CURSOR.test(text) || text[0] !== PREFIX[kind]) return null;
    const block = Buffer.from(text.slice(1), "base64url");
    if (block.length !== 16) return null;
    const d = createDecipheriv("aes-256-ecb", keyFor(kind, scope), null).setAutoPadding(false);
    const plain = Buffer.concat([d.update(block), d.final()]);
    if (plain.readBigUInt64BE(8) !== 0n) return null;
    const seq = plain.readBigUInt64BE(0);
    return seq <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seq) : null;
  };
  return {
    encode(kind, scope, seq) {
      const block = Buffer.alloc(16);
      block.writeBigUInt64BE(BigInt(seq), 0);
      const c = createCipheriv("aes-256-ecb", keyFor(kind, scope), null).setAutoPadding(false);
      return PREFIX[kind] + Buffer.concat([c.update(block), c.final()]).toString("base64url");
    },
    parse,
    decode(kind, scope, text, field) {
      const seq = parse(kind, scope, text);
      if (seq === null) throw invalidCursor(field);
      return seq;
    },
    orders: orderPositions(keyFor),
  };
}

/**
 * Order positions sealed with a synthetic IV (the SIV construction): the IV is an HMAC of the
 * position under the scope's MAC key, and the position is encrypted with AES-256-CTR under the
 * scope's own key from that IV. Deterministic (one spelling per position) and authenticated: under
 * another scope's keys, or changed by one bit, the recomputed HMAC differs from the IV. Every cursor
 * has the same length (ids padded to 64 bytes), so it does not even tell the length of the id.
 */
function orderPositions(keyFor: (kind: "order" | "order-mac", scope: CursorScope) => Buffer): Cursors["orders"] {
  const ivOf = (scope: CursorScope, plain: Buffer) => createHmac("sha256", keyFor("order-mac", scope)).update(plain).digest().subarray(0, 16);
  const ctr = (scope: CursorScope, iv: Buffer, data: Buffer) => {
    const c = createCipheriv("aes-256-ctr", keyFor("order", scope), iv);
    return Buffer.concat([c.update(data), c.final()]);
  };
  const parse = (scope: CursorScope, text: string): OrderPosition | null => {
    if (!ORDER_CURSOR.test(text)) return null;
    const bytes = Buffer.from(text.slice(1), "base64url");
    if (bytes.length !== 16 + 8 + ORDER_ID_BYTES) return null;
    const iv = bytes.subarray(0, 16);
    const plain = ctr(scope, iv, bytes.subarray(16));
    if (!timingSafeEqual(ivOf(scope, plain), iv)) return null;
    const createdAt = plain.readBigUInt64BE(0);
    if (createdAt > BigInt(Number.MAX_SAFE_INTEGER)) return null;
    const id = plain.subarray(8);
    const end = id.indexOf(0);
    return { createdAt: Number(createdAt), id: id.subarray(0, end < 0 ? id.length : end).toString("latin1") };
  };
  return {
    encode(scope, position) {
      if (!/^[\x01-\x7f]{0,64}$/.test(position.id)) throw new Error("an order id is at most 64 ASCII characters");
      const plain = Buffer.alloc(8 + ORDER_ID_BYTES);
      plain.writeBigUInt64BE(BigInt(position.createdAt), 0);
      plain.write(position.id, 8, "latin1");
      const iv = ivOf(scope, plain);
      return "o" + Buffer.concat([iv, ctr(scope, iv, plain)]).toString("base64url");
    },
    parse,
    decode(scope, text, field) {
      const position = parse(scope, text);
      if (position === null) throw invalidCursor(field, "This cursor was not issued by this list to this key's shop and environment");
      return position;
    },
  };
}

/** The cursors of the database behind `db`, under its box_settings cursor key. */
export const cursorsOf: (db: Db | Store) => Cursors = perConnection((client: Database) => {
  const row = client.query<{ value: string }, []>("SELECT value FROM box_settings WHERE key = 'cursor_key'").get();
  if (!row || !/^[0-9a-f]{64}$/.test(row.value)) throw new Error("box_settings has no valid cursor_key: the database is damaged");
  return cursorCodec(Buffer.from(row.value, "hex"));
});

/** Cursors for the examples of the OpenAPI document: made under a fixed key, never accepted by a box. */
export const exampleCursors = cursorCodec(new Uint8Array(32));
export const EXAMPLE_SCOPE: CursorScope = { tenantId: "ten_7Hq2Lx9VbN4cR1tY8kPw", environment: "live" };

export function invalidCursor(field: string, detail = "This cursor was not issued by this feed to this key's shop and environment"): DomainError {
  return new DomainError("invalid_cursor", detail, { errors: [{ field, message: "not a cursor of this feed" }] });
}

/**
 * A page of a list in commit order whose rows are read one status at a time (one index range each,
 * so no query walks other statuses' or other shops' rows) and merged: the events view (§12) and the
 * notifications list (§16). `fetch` reads up to `take` rows of a status after the position `from`.
 */
export function pageByStatus<S, R extends { seq: number }, V>(
  store: Store,
  kind: CursorKind,
  scope: CursorScope,
  statuses: readonly S[],
  q: { after?: string; limit: number },
  fetch: (status: S, from: number, take: number) => R[],
  view: (row: R) => V,
) {
  const cursors = cursorsOf(store);
  const from = q.after === undefined ? 0 : cursors.decode(kind, scope, q.after, "/after");
  const rows = store.db.transaction(() => statuses.flatMap((status) => fetch(status, from, q.limit + 1)));
  rows.sort((a, b) => a.seq - b.seq);
  const page = rows.slice(0, q.limit);
  const last = page.length > 0 ? page[page.length - 1]!.seq : from;
  return { data: page.map(view), next_cursor: cursors.encode(kind, scope, last), has_more: rows.length > q.limit };
}
