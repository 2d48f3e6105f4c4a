// contract §17: a phone trusts its box by the SHA-256 fingerprint of its certificate, given in the
// pairing URI, not by the name or address in the certificate: a box whose router gave it a new
// address keeps working, and another machine on the shop's Wi-Fi cannot stand in for it.
import { connect, rootCertificates, type DetailedPeerCertificate } from "node:tls";
import { fingerprintOfDer } from "../pairing/uri";

/** The box at this address is not the paired one (or not there at all). No request was sent. */
export class PinMismatchError extends Error {
  constructor(
    readonly origin: string,
    readonly presented: string | null,
  ) {
    super(`the server at ${origin} ${presented ? `presents certificate ${presented}` : "presents no certificate"}, not the paired box's`);
  }
}

const PROBE_TIMEOUT_MS = 5_000;

/**
 * A fetch that talks only to the box whose certificate has `fp`, checked on every connection:
 *
 * 1. The first time an origin is used, a TLS handshake is made to it only to read the certificate
 *    chain it presents (nothing is sent on it): a self-signed certificate, as the box's own, has no
 *    issuer the phone could know, so the chain to trust must come from the box itself.
 * 2. Requests then go over TLS whose chain must verify against that chain (or a public root), and
 *    `checkServerIdentity` refuses, on each new connection, any certificate whose SHA-256 is not
 *    `fp`. That is the pin, before a byte of the request is sent; it replaces the host-name check,
 *    so the certificate need not name the address.
 *
 * A refusal for the certificate (the box at that address changed) reads the chain again once, so a
 * certificate that is not the pinned one ends as a PinMismatchError.
 */
export function pinnedFetch(fp: string): (request: Request) => Promise<Response> {
  const trusted = new Map<string, string[]>(); // origin → the pinned certificate's chain, PEM
  const send = (request: Request, chain: string[]) =>
    fetch(request.clone(), {
      tls: {
        ca: [...chain, ...rootCertificates],
        checkServerIdentity: (_host: string, cert: { raw: Uint8Array }) =>
          fingerprintOfDer(cert.raw) === fp ? undefined : new PinMismatchError(new URL(request.url).origin, fingerprintOfDer(cert.raw)),
      },
    } as RequestInit);
  return async (request) => {
    const url = new URL(request.url);
    if (url.protocol !== "https:") throw new PinMismatchError(url.origin, null);
    let chain = trusted.get(url.origin);
    if (!chain) {
      chain = await presentedChain(url);
      trusted.set(url.origin, chain);
    }
    try {
      return await send(request, chain);
    } catch (e) {
      if (!isCertificateError(e)) throw e;
      trusted.delete(url.origin);
      const fresh = await presentedChain(url);
      trusted.set(url.origin, fresh);
      return await send(request, fresh);
    }
  };
}

const toPem = (der: Uint8Array) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString("base64").match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;

function isCertificateError(e: unknown): boolean {
  if (e instanceof PinMismatchError) return true;
  const code = (e as { code?: string }).code ?? "";
  return /CERT|SELF_SIGNED|UNABLE_TO|ALTNAME/.test(code);
}

/** The certificate chain an origin presents (PEM, leaf first). Verified by the connections that use it, not here. */
function presentedChain(url: URL): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 443);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, rejectUnauthorized: false });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS answer from ${url.origin} in ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
    socket.once("secureConnect", () => {
      const leaf = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
      clearTimeout(timer);
      socket.destroy();
      if (!leaf?.raw || leaf.raw.length === 0) return reject(new PinMismatchError(url.origin, null));
      const chain: string[] = [];
      for (let c: DetailedPeerCertificate | undefined = leaf; c?.raw && chain.length < 10; c = c.issuerCertificate === c ? undefined : c.issuerCertificate) {
        chain.push(toPem(c.raw));
      }
      resolve(chain);
    });
    socket.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
