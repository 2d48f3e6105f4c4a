// The client's certificate pinning (src/client/pinning.ts) against real TLS servers on loopback:
// a self-signed certificate as the box makes, a CA-signed one as --tls-cert serves, and another
// certificate on the same address, from the same CA or not.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { generate } from "selfsigned";
import { PinMismatchError, pinnedFetch } from "../src/client/pinning";
import { fingerprintOfPem } from "../src/pairing/uri";
import { freePort } from "./support/e2e";

setDefaultTimeout(30_000); // RSA keys are made here

type Pems = { cert: string; private: string };
const leaf = (ca?: Pems, name = "caja.example") =>
  generate([{ name: "commonName", value: name }], {
    keySize: 2048,
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: name }] }],
    ...(ca ? { ca: { key: ca.private, cert: ca.cert } } : {}),
  }) as Promise<Pems>;
const authority = () =>
  generate([{ name: "commonName", value: "Shop CA" }], {
    keySize: 2048,
    algorithm: "sha256",
    extensions: [{ name: "basicConstraints", cA: true, critical: true }, { name: "keyUsage", keyCertSign: true, critical: true }],
  }) as Promise<Pems>;

const chainOf = (cert: Pems, ca: Pems) => `${cert.cert.trim()}\n${ca.cert.trim()}\n`;

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});
/** A TLS server on 127.0.0.1 presenting `cert` (a chain: leaf first). Answers who it is. */
function serve(port: number, cert: string, key: string, who: string) {
  const s = Bun.serve({ port, hostname: "127.0.0.1", tls: { cert, key }, fetch: () => new Response(who) });
  servers.push(s);
  return s;
}
const get = (fetcher: (r: Request) => Promise<Response>, port: number) => fetcher(new Request(`https://127.0.0.1:${port}/`)).then((r) => r.text());

describe("pinnedFetch", () => {
  test("talks to a self-signed box with the pinned fingerprint, though its certificate names another host", async () => {
    const box = await leaf();
    const port = await freePort();
    serve(port, box.cert, box.private, "box");
    expect(await get(pinnedFetch(fingerprintOfPem(box.cert)), port)).toBe("box");
  });

  test("a CA-signed certificate (--tls-cert) is pinned by its own fingerprint too", async () => {
    const ca = await authority();
    const box = await leaf(ca);
    const port = await freePort();
    serve(port, chainOf(box, ca), box.private, "box");
    expect(await get(pinnedFetch(fingerprintOfPem(box.cert)), port)).toBe("box");
  });

  test("another certificate is refused with PinMismatchError, the request never reaching it", async () => {
    const [box, other] = await Promise.all([leaf(), leaf()]);
    const port = await freePort();
    let reached = 0;
    servers.push(Bun.serve({ port, hostname: "127.0.0.1", tls: { cert: other.cert, key: other.private }, fetch: () => (reached++, new Response("other")) }));
    const error = await get(pinnedFetch(fingerprintOfPem(box.cert)), port).catch((e) => e);
    expect(error).toBeInstanceOf(PinMismatchError);
    expect((error as PinMismatchError).presented).toBe(fingerprintOfPem(other.cert));
    expect(reached).toBe(0);
  });

  test("a certificate that changes after pairing is refused on the next connection, even one from the same CA", async () => {
    const ca = await authority();
    const [box, sibling] = await Promise.all([leaf(ca), leaf(ca)]);
    const port = await freePort();
    const first = serve(port, chainOf(box, ca), box.private, "box");
    const fetcher = pinnedFetch(fingerprintOfPem(box.cert));
    expect(await get(fetcher, port)).toBe("box");
    first.stop(true);
    // The same CA signed it, so its chain verifies: only the fingerprint tells it from the box.
    serve(port, chainOf(sibling, ca), sibling.private, "sibling");
    expect(await get(fetcher, port).catch((e) => e)).toBeInstanceOf(PinMismatchError);
  });

  test("plain HTTP is refused: a pinned client never speaks without TLS", async () => {
    const error = await pinnedFetch("ab".repeat(32))(new Request("http://127.0.0.1:9/")).catch((e) => e);
    expect(error).toBeInstanceOf(PinMismatchError);
  });
});
