// The data dir (contract §1): the database and the key material beside it, readable by its owner only.
import { mkdirSync } from "node:fs";

export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}
