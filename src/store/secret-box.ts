// Device secrets are stored encrypted (AES-256-GCM, WebCrypto) under a master key that lives in the
// data dir beside, not inside, the database file: a copy of the database alone reveals no secret
// (contract §13).
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDataDir } from "./data-dir";

export const MASTER_KEY_FILE = "master.key";

export interface SecretBox {
  seal(plaintext: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

/** Reads the data dir's master key, creating it (mode 0600) on first use. */
export function loadMasterKey(dataDir: string): Uint8Array<ArrayBuffer> {
  ensureDataDir(dataDir);
  const path = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(path)) {
    const key = crypto.getRandomValues(new Uint8Array(32));
    try {
      // "wx": if another process created it a moment ago, keep theirs.
      writeFileSync(path, Buffer.from(key).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  chmodSync(path, 0o600);
  const key = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${path} is damaged: expected a 32-byte base64 key`);
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
