// contract §20: connector keys and activation codes are stored as HMAC-SHA256 under the box's
// master key (master.key, beside the database, never in it), so a copy of the database alone
// cannot be searched offline for a valid code or key. The stored value is
// HMAC(master key, SHA-256 hex of the text): rows written before, as the plain SHA-256 hex, were
// rehashed once in place when a store was first opened by this version (rehashLegacyOnce).
import type { Database } from "bun:sqlite";
import { hmacSha256Hex, sha256Hex } from "../ids";
import { rawClient, type Db, type Store } from "./db";

const keyOf = new WeakMap<Database, Uint8Array>();

/** Called by openStore: the master key of the connection's data dir. */
export function useHashKey(client: Database, masterKey: Uint8Array): void {
  keyOf.set(client, masterKey);
}

const hashUnder = (key: Uint8Array, sha256: string): string => hmacSha256Hex(key, sha256);

/** The stored form of a key's or a code's text, for the database behind `db`. */
export function secretHash(db: Db | Store, text: string): string {
  const key = keyOf.get(rawClient(db));
  if (!key) throw new Error("secretHash: this connection was not opened by openStore");
  return hashUnder(key, sha256Hex(text));
}

const DONE = "secret_hashes";

/**
 * Rehashes the plain SHA-256 rows of api_keys and activation_codes under the master key, once per
 * database (recorded in box_settings). Runs in the caller's IMMEDIATE transaction, so that a server
 * and a CLI command opening the store at once do not both rehash.
 */
export function rehashLegacyOnce(client: Database, masterKey: Uint8Array): void {
  if (client.query("SELECT 1 FROM box_settings WHERE key = ?").get(DONE)) return;
  const rehash = (table: "api_keys" | "activation_codes", column: "key_hash" | "code_hash") => {
    const update = client.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`);
    for (const row of client.query<{ id: string; h: string }, []>(`SELECT id, ${column} AS h FROM ${table}`).all()) {
      update.run(hashUnder(masterKey, row.h), row.id);
    }
  };
  rehash("api_keys", "key_hash");
  rehash("activation_codes", "code_hash");
  client.run("INSERT INTO box_settings (key, value) VALUES (?, 'hmac-sha256')", [DONE]);
}
