// The box's TLS certificate: the self-signed one made in the data dir on first use, or the
// merchant's own (--tls-cert/--tls-key). Phones pin its SHA-256 fingerprint (contract §17), so the
// self-signed one is made once and kept: a new certificate would unpair every phone.
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lanAddresses } from "./base-url";
import { fingerprintOfPem } from "./uri";

export interface TlsFiles {
  cert: string;
  key: string;
  /** contract §17 form: 64 lower-case hex digits. */
  fingerprint: string;
}

export const selfSignedCertPath = (dataDir: string) => join(dataDir, "tls", "cert.pem");

/** The data dir's self-signed certificate, made on first use (10 years, localhost and this box's addresses). */
export async function ensureSelfSignedCert(dataDir: string): Promise<TlsFiles> {
  const certPath = selfSignedCertPath(dataDir);
  const keyPath = join(dataDir, "tls", "key.pem");
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    mkdirSync(join(dataDir, "tls"), { recursive: true, mode: 0o700 });
    const ips = ["127.0.0.1", "::1", ...lanAddresses()];
    // Loaded only here, when a certificate is made: it takes longer to load (about 75 ms) than the
    // rest of start-up.
    const { generate } = await import("selfsigned");
    const pems = await generate([{ name: "commonName", value: "cuadra.local" }], {
      keySize: 2048,
      notAfterDate: new Date(Date.now() + 3650 * 24 * 3600 * 1000),
      algorithm: "sha256",
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        {
          name: "subjectAltName",
          altNames: [{ type: 2, value: "localhost" }, { type: 2, value: "cuadra.local" }, ...ips.map((ip) => ({ type: 7 as const, ip }))],
        },
      ],
    });
    writeFileSync(keyPath, pems.private, { mode: 0o600 });
    writeFileSync(certPath, pems.cert, { mode: 0o644 });
  }
  return loadTls(certPath, keyPath);
}

export function loadTls(certPath: string, keyPath: string): TlsFiles {
  const cert = readFileSync(certPath, "utf8");
  const key = readFileSync(keyPath, "utf8");
  return { cert, key, fingerprint: fingerprintOfPem(cert) };
}

/**
 * The addresses among `addresses` that the certificate does not name. Phones do not care (they
 * trust the fingerprint), but a browser or `curl --cacert` opened on such an address warns.
 */
export function addressesNotInCertificate(certPem: string, addresses: string[]): string[] {
  const cert = new X509Certificate(certPem);
  return addresses.filter((a) => cert.checkIP(a) === undefined);
}
