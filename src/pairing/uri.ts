// contract §17: the pairing URI a phone scans, `cuadra://pair?url=…&code=…&fp=…`, and the form of a
// certificate fingerprint in it. Pure: the CLI, the server and the device client share it.
import { createHash, X509Certificate } from "node:crypto";

export interface Pairing {
  /** The box's base URL, e.g. https://192.168.1.20:8443 (no trailing slash, no path). */
  url: string;
  /** The activation code, e.g. WDJB-MJHT-KXQP. */
  code: string;
  /** SHA-256 of the box's TLS certificate, lower-case hex without separators; null without TLS. */
  fp: string | null;
}

const FINGERPRINT = /^[0-9a-f]{64}$/;

/** The fingerprint of a PEM certificate in the contract's form (64 lower-case hex digits). */
export function fingerprintOfPem(pem: string): string {
  return fingerprintOfDer(new X509Certificate(pem).raw);
}

/** The fingerprint of a DER certificate (what a TLS connection hands over) in the contract's form. */
export function fingerprintOfDer(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("hex");
}

/** Accepts the forms people copy (`BD:5D:…`, upper case, spaces) and gives the contract's form, or null. */
export function normaliseFingerprint(text: string): string | null {
  const hex = text.replace(/[\s:]/g, "").toLowerCase();
  return FINGERPRINT.test(hex) ? hex : null;
}

/** `BD:5D:8D:…`: the form browsers show, for people comparing by eye. */
export function fingerprintForPeople(fp: string): string {
  return fp.toUpperCase().match(/../g)!.join(":");
}

export function pairingUri({ url, code, fp }: Pairing): string {
  const query = `url=${encodeURIComponent(url)}&code=${encodeURIComponent(code)}`;
  return `cuadra://pair?${query}${fp ? `&fp=${fp}` : ""}`;
}

export class PairingUriError extends Error {}

/** Reads a pairing URI; throws PairingUriError saying what is wrong. */
export function parsePairingUri(text: string): Pairing {
  let uri: URL;
  try {
    uri = new URL(text.trim());
  } catch {
    throw new PairingUriError("not a URI");
  }
  // WHATWG URL parses `cuadra://pair?…` with host "pair" and an empty path.
  if (uri.protocol !== "cuadra:" || uri.host !== "pair" || (uri.pathname !== "" && uri.pathname !== "/")) {
    throw new PairingUriError("not a cuadra://pair URI");
  }
  const url = uri.searchParams.get("url");
  const code = uri.searchParams.get("code");
  const fpText = uri.searchParams.get("fp");
  if (!url) throw new PairingUriError("no url");
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new PairingUriError("url is not an absolute URL");
  }
  if (base.protocol !== "https:" && base.protocol !== "http:") throw new PairingUriError("url is not http(s)");
  if (!code) throw new PairingUriError("no code");
  const fp = fpText === null ? null : normaliseFingerprint(fpText);
  if (fpText !== null && fp === null) throw new PairingUriError("fp is not a SHA-256 fingerprint");
  if (base.protocol === "https:" && fp === null) throw new PairingUriError("an https box must come with its fp");
  return { url: url.replace(/\/+$/, ""), code, fp };
}
