// Device secrets are stored encrypted (AES-256-GCM, WebCrypto) under a master key that lives in the
// data dir beside, not inside, the database file: a copy of the database alone reveals no secret
// (contract §13).
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hmacSha256Hex } from "../ids";
import { ensureDataDir } from "./data-dir";

export const MASTER_KEY_FILE = "master.key";
/** db.ts's DB_FILE (db.ts imports this module, so the name is repeated here, for messages only). */
const DATABASE_FILE = "cuadra.db";

export interface SecretBox {
  seal(plaintext: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

/**
 * The data dir's master key cannot be used with its database: it is missing while the database
 * already holds the box's data, it is another box's key, or the file is damaged. openStore refuses
 * to open such a data dir rather than make a new key, which would silently orphan every stored
 * secret, key and code (nothing in the database could be read or recognised again).
 */
export class BoxKeyError extends Error {
  constructor(
    readonly problem: "missing" | "mismatch" | "damaged",
    /** The master.key file. */
    readonly keyFile: string,
    /** The database file. */
    readonly dbFile: string,
  ) {
    super(
      problem === "missing"
        ? `${keyFile} is missing, but the database ${dbFile} already holds this box's data, which only its own master.key can read. ` +
            `Put back this box's master.key from your backup (cuadra restore --from FILE restores a whole backup). Do not delete the database.`
        : problem === "mismatch"
          ? `${keyFile} is not the key of the database ${dbFile}: it is another box's key, or a new one made after the original was lost. ` +
              `Put back this box's own master.key from your backup (cuadra restore --from FILE restores a whole backup). Do not delete the database.`
          : `${keyFile} is damaged (it must hold a 32-byte key in base64). Put back this box's master.key from your backup ` +
              `(cuadra restore --from FILE restores a whole backup). Do not delete the database.`,
    );
    this.name = "BoxKeyError";
  }
}

/** box_settings key of the value that says which master key a database belongs to. */
export const MASTER_KEY_CHECK_SETTING = "master_key_check";

/** HMAC-SHA256 of a fixed text under the master key: names the key without revealing it. */
export const masterKeyCheck = (masterKey: Uint8Array): string => hmacSha256Hex(masterKey, "cuadra master key check v1");

/**
 * Reads the data dir's master key. Only openStore passes `create`, and only for a database that holds
 * nothing yet: anywhere else a missing key is a BoxKeyError, never a new key made behind its back.
 */
export function loadMasterKey(dataDir: string, opts: { create?: boolean } = {}): Uint8Array<ArrayBuffer> {
  const path = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(path)) {
    if (!opts.create) throw new BoxKeyError("missing", path, join(dataDir, DATABASE_FILE));
    ensureDataDir(dataDir);
    const key = crypto.getRandomValues(new Uint8Array(32));
    try {
      // "wx": if another process created it a moment ago, keep theirs.
      writeFileSync(path, Buffer.from(key).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  try {
    chmodSync(path, 0o600);
  } catch {
    // a read-only file system or foreign owner: reading still works, permissions are the admin's call
  }
  const text = readFileSync(path, "utf8").trim();
  const key = Buffer.from(text, "base64");
  if (key.length !== 32 || !/^[A-Za-z0-9+/]{43}=$/.test(text)) throw new BoxKeyError("damaged", path, join(dataDir, DATABASE_FILE));
  return new Uint8Array(key) as Uint8Array<ArrayBuffer>;
}

export async function createSecretBox(masterKey: Uint8Array<ArrayBuffer>): Promise<SecretBox> {
  const key = await crypto.subtle.importKey("raw", masterKey, "AES-GCM", false, ["encrypt", "decrypt"]);
  return {
    async seal(plaintext) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)));
      return `v1.${Buffer.from(iv).toString("base64url")}.${Buffer.from(ct).toString("base64url")}`;
    },
    async open(sealed) {
      const [version, iv, ct] = sealed.split(".");
      if (version !== "v1" || !iv || !ct) throw new Error("unknown secret format");
      const pt = await crypto.subtle.decrypt({ name: "AES-GCM", iv: Buffer.from(iv, "base64url") }, key, Buffer.from(ct, "base64url"));
      return new TextDecoder().decode(pt);
    },
  };
}
