// contract §5: the signing scheme, recomputed independently of src/ (node:crypto and openssl), and
// the worked example published in /docs/json.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { requestTarget, signatureMatches, signRequest, stringToSign } from "../src/device/signing";
import { SIGNING_EXAMPLE } from "../src/system/docs-text";
import { devices } from "../src/store/schema";
import { createSecretBox, loadMasterKey } from "../src/store/secret-box";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

/** The contract's formula written out with node:crypto only. */
function independentSignature(secret: string, ts: string, method: string, path: string, body: string): string {
  const bodyHash = createHash("sha256").update(Buffer.from(body, "utf8")).digest("hex");
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(`${ts}\n${method}\n${path}\n${bodyHash}`).digest("hex");
}

describe("signing vectors", () => {
  test("the worked example matches node:crypto", () => {
    const e = SIGNING_EXAMPLE;
    expect(signRequest(e.secret, e.timestamp, e.method, e.path, e.body)).toBe(independentSignature(e.secret, e.timestamp, e.method, e.path, e.body));
  });

  test("string to sign: timestamp, upper-case method, path with query, hash of the empty body", () => {
    expect(stringToSign("1700000000000", "post", "/device/v1/heartbeat?x=1", "")).toBe(
      "1700000000000\nPOST\n/device/v1/heartbeat?x=1\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });

  test("a fixed vector with non-ASCII body bytes and a non-ASCII secret", () => {
    const secret = "clave-ñandú-✓";
    const body = '{"payer_name":"José Ñuñez"}';
    const sig = signRequest(secret, "1795262400000", "POST", "/device/v1/events", new TextEncoder().encode(body));
    expect(sig).toBe(independentSignature(secret, "1795262400000", "POST", "/device/v1/events", body));
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
  });

  test("comparison is case-insensitive and rejects any other signature", () => {
    const sig = signRequest("s", "1", "POST", "/p", "b");
    expect(signatureMatches(sig, sig.toUpperCase())).toBe(true);
    expect(signatureMatches(sig, sig.slice(0, 63) + (sig[63] === "0" ? "1" : "0"))).toBe(false);
    expect(signatureMatches(sig, sig.slice(0, 62))).toBe(false);
    expect(signatureMatches(sig, "")).toBe(false);
  });

  test("request target keeps the path and query exactly as sent", () => {
    expect(requestTarget("http://localhost/device/v1/events")).toBe("/device/v1/events");
    expect(requestTarget("https://10.0.0.2:8443/device/v1/events?a=%2F&b")).toBe("/device/v1/events?a=%2F&b");
    expect(requestTarget("http://h")).toBe("/");
  });
});

const hasOpenssl = Bun.which("openssl") !== null && Bun.which("sha256sum") !== null;

test.if(hasOpenssl)("the published shell one-liner prints exactly the worked example's signature, as bare hex", async () => {
  const e = SIGNING_EXAMPLE;
  // The line as /docs/json publishes it, run as it stands.
  const published = (await t.request("GET", "/docs/json")).body.tags.find((t: { name: string }) => t.name === "Device").description as string;
  const script = /Shell: `([^`]+)`/.exec(published)![1]!;
  const proc = Bun.spawn(["sh", "-c", script], { env: { ...process.env, TS: e.timestamp, BODY: e.body, SECRET: e.secret }, stdout: "pipe" });
  const out = (await new Response(proc.stdout).text()).trim();
  expect(await proc.exited).toBe(0);
  expect(out).toBe(independentSignature(e.secret, e.timestamp, e.method, e.path, e.body));
});

test("GET /docs/json publishes the worked example with the right signature and body hash", async () => {
  const e = SIGNING_EXAMPLE;
  const res = await t.request("GET", "/docs/json");
  expect(res.status).toBe(200);
  // The Device section (its tag's description) holds it in full; the security scheme points there.
  const scheme = res.body.tags.find((t: { name: string }) => t.name === "Device").description as string;
  expect(res.body.components.securitySchemes.DeviceSignature).toMatchObject({ type: "http", scheme: "hmac-sha256" });
  const bodyHash = createHash("sha256").update(e.body).digest("hex");
  expect(scheme).toContain(`X-Signature: \`${independentSignature(e.secret, e.timestamp, e.method, e.path, e.body)}\``);
  expect(scheme).toContain(`sha256(body): \`${bodyHash}\``);
  expect(scheme).toContain(e.secret);
  expect(scheme).toContain(e.timestamp);
});

test("the server accepts the worked example's exact request, signed as published", async () => {
  const e = SIGNING_EXAMPLE;
  t.clock.set(Number(e.timestamp));
  const tenant = t.tenant();
  const deviceId = "dev_WorkedExample000000";
  t.store.db
    .insert(devices)
    .values({
      id: deviceId,
      tenantId: tenant.tenant_id,
      environment: "test",
      label: "example",
      platform: "android",
      appVersion: "1",
      osVersion: "1",
      secretEnc: await (await createSecretBox(loadMasterKey(t.dataDir))).seal(e.secret),
      createdAt: t.clock.now(),
    })
    .run();
  const published = independentSignature(e.secret, e.timestamp, e.method, e.path, e.body);
  const send = (signature: string) =>
    t.send(
      new Request(`http://localhost${e.path}`, {
        method: e.method,
        headers: {
          "content-type": "application/json",
          "idempotency-key": JSON.parse(e.body).event_id,
          "x-device-id": deviceId,
          "x-timestamp": e.timestamp,
          "x-signature-alg": "HMAC-SHA256",
          "x-signature": signature,
        },
        body: e.body,
      }),
    );
  const ok = await send(published);
  expect(ok.status).toBe(201);
  expect(ok.body.match).toEqual({ status: "unmatched", order_id: null });
  const bad = await send(published.replace(/.$/, (c) => (c === "0" ? "1" : "0")));
  expect(bad.status).toBe(401);
  expect(bad.body.code).toBe("invalid_signature");
});
