// Opaque cursors (contract §11, §12, §20): a position in the matches feed or in the events view,
// bound to the tenant and environment that received it. A position is the row's seq, which counts
// every shop's rows; so that a cursor reveals nothing of other shops (how many matches they have),
// the seq is encrypted: one AES block, the seq and eight zero bytes, under a key made for the kind
// of cursor and the scope from the box's cursor key (box_settings, migration 0009). Decrypted with
// another scope's key the zero bytes come out wrong, so a cursor of another tenant, environment or
// feed, or anything we did not produce, is `400 invalid_cursor`. Encryption is deterministic: one
// spelling per position, so an acknowledged cursor comes back as it was sent.
import type { Database } from "bun:sqlite";
import { createCipheriv, createDecipheriv, createHmac } from "node:crypto";
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
}

/** A codec for cursors under `key` (32 bytes). */
export function cursorCodec(key: Uint8Array): Cursors {
  const keys = new Map<string, Buffer>();
  const keyFor = (kind: CursorKind, scope: CursorScope): Buffer => {
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
