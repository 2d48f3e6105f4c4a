// Where phones reach this box, for the pairing URI (contract §17). `code create` runs in its own
// process and cannot ask the server how it was started (port, --public-url, --tls), so `serve`
// records it in the data dir at every start; before any start the defaults of `serve` are assumed.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseUrl, lanAddresses } from "./base-url";
import { ensureSelfSignedCert } from "./certificate";
import { pairingUri, type Pairing } from "./uri";

export interface BoxAddress {
  /** Base URL of the box, e.g. https://192.168.1.20:8443. */
  url: string;
  /** Certificate fingerprint (contract §17 form), or null when served without TLS. */
  fp: string | null;
}

const FILE = "address.json";
export const DEFAULT_PORT = 8443;

/** Called by `serve` once it listens. Written whole then renamed, so a reader never sees half of it. */
export function recordBoxAddress(dataDir: string, address: BoxAddress): void {
  const path = join(dataDir, FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(address)}\n`, { mode: 0o644 });
  renameSync(`${path}.tmp`, path);
}

/**
 * The address the last `serve` recorded; before the first one, what a default `serve` will use
 * (HTTPS on 8443 with the data dir's self-signed certificate, made now if missing so that the
 * fingerprint given to a phone is the one the server will present).
 */
export async function boxAddress(dataDir: string): Promise<BoxAddress> {
  const path = join(dataDir, FILE);
  if (existsSync(path)) {
    try {
      const stored = JSON.parse(readFileSync(path, "utf8")) as BoxAddress;
      if (typeof stored.url === "string" && (stored.fp === null || typeof stored.fp === "string")) return stored;
    } catch {
      // unreadable: fall back to the defaults, as before the first start
    }
  }
  const tls = await ensureSelfSignedCert(dataDir);
  return { url: baseUrl({ scheme: "https", port: DEFAULT_PORT, addresses: lanAddresses() }), fp: tls.fingerprint };
}

/** The pairing URI of one activation code for this box. */
export async function pairingUriFor(dataDir: string, code: string): Promise<string> {
  const { url, fp } = await boxAddress(dataDir);
  return pairingUri({ url, code, fp } satisfies Pairing);
}
