// contract §17 over the built binary: the pairing URI that `code create` gives, the certificate the
// box actually serves, a phone that pairs and pins it, the announcement on the local network, and a
// phone that finds its box again after the box moved.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";
import { DeviceClient } from "../src/client/device-client";
import { PinMismatchError } from "../src/client/pinning";
import { parsePairingUri } from "../src/pairing/uri";
import { cli, freePort, phoneEvent, ROOT, createShop, servedFingerprint, serversKilledAfterAll, tempDirsRemovedAfterAll, until } from "./support/e2e";
import { mdnsPeer, multicastWorks, txtOf } from "./support/mdns";
import { decodeTerminalQr } from "./support/qr";

// Each test starts up to three boxes, each making its certificate (an RSA key) on a busy machine.
setDefaultTimeout(60_000);

const temp = tempDirsRemovedAfterAll();
const start = serversKilledAfterAll();

const phone = { device_label: "Caja 1", app_version: "1.4.0", platform: "android" as const, os_version: "14" };

const shop = createShop;

async function pairingUri(dataDir: string, tenantId: string): Promise<string> {
  const r = await cli(dataDir, ["code", "create", "--tenant", tenantId, "--env", "live", "--json"]);
  expect(r.code).toBe(0);
  return r.json.pairing_uri;
}

describe("pairing a phone with the pairing URI", () => {
  test("code create gives a URI whose fp is the certificate the box serves, drawn as a QR code that decodes to it", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    const box = await start({ dataDir, tls: true });
    const uri = await pairingUri(dataDir, tenantId);
    const pairing = parsePairingUri(uri);
    expect(pairing.url).toBe(`https://127.0.0.1:${box.port}`);
    expect(pairing.code).toMatch(/^[A-Z]{4}-[A-Z]{4}-[A-Z]{4}$/);
    expect(pairing.fp).toBe(await servedFingerprint(box.port));

    const human = await cli(dataDir, ["code", "create", "--tenant", tenantId, "--env", "live"]);
    const drawn = decodeTerminalQr(human.stdout);
    expect(drawn).toStartWith("cuadra://pair?");
    expect(parsePairingUri(drawn!).fp).toBe(pairing.fp);
    expect(human.stdout).toContain(`Pairing URI: ${drawn}`);
  });

  test("the client pairs over TLS pinned to fp, with a certificate that names none of the box's addresses, and its events are stored", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    // As after the router gave the box a new address: the certificate names another one.
    const pems = await generate([{ name: "commonName", value: "elsewhere.example" }], {
      keySize: 2048,
      algorithm: "sha256",
      extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "192.168.77.77" }] }],
    });
    const certDir = temp.mkdtemp(join(tmpdir(), "cuadra-cert-"));
    writeFileSync(join(certDir, "cert.pem"), pems.cert);
    writeFileSync(join(certDir, "key.pem"), pems.private);
    const box = await start({ dataDir, tls: true, args: ["--tls-cert", join(certDir, "cert.pem"), "--tls-key", join(certDir, "key.pem")] });
    // serve says so at start, and what it means for phones.
    expect(box.output()).toContain("the TLS certificate names none of this computer's addresses (127.0.0.1)");
    expect(box.output()).toContain("Phones paired with a QR code are not affected");
    // A client that checks names refuses it, as fetch does by default.
    await expect(fetch(`${box.url}/healthz`, { tls: { ca: pems.cert } } as RequestInit)).rejects.toThrow();

    const { client, activation } = await DeviceClient.pair(await pairingUri(dataDir, tenantId), phone);
    expect(activation.tls_fingerprint).toBe(await servedFingerprint(box.port));
    expect(client.credentials.tlsFingerprint).toBe(activation.tls_fingerprint);
    expect((await client.sendEvent(phoneEvent())).status).toBe(201);
    expect((await client.heartbeat({ battery_level: 80 })).status).toBe(200);
    expect(client.queue).toEqual([]);
  });

  test("a URI with another fp is refused before anything is sent: the code stays unused", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    const box = await start({ dataDir, tls: true });
    const uri = await pairingUri(dataDir, tenantId);
    const forged = uri.replace(/fp=[0-9a-f]{64}/, `fp=${"ab".repeat(32)}`);
    await expect(DeviceClient.pair(forged, phone)).rejects.toBeInstanceOf(PinMismatchError);
    expect(box.output()).not.toContain("/device/v1/activation");
    // The same code with the right fp still works: the refused attempt never reached the box.
    const { activation } = await DeviceClient.pair(uri, phone);
    expect(activation.device_id).toMatch(/^dev_/);
  });

  test("a box with another certificate at the paired address gets no request; the event stays queued", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    const port = await freePort();
    const box = await start({ dataDir, tls: true, port });
    const { client } = await DeviceClient.pair(await pairingUri(dataDir, tenantId), phone, {
      discover: async () => null,
      sleep: async () => {},
      maxRetries: 1,
    });
    expect(await box.stop()).toBe(0);

    const impostor = await start({ dataDir: temp.dataDir(), tls: true, port });
    const event = phoneEvent();
    await expect(client.sendEvent(event)).rejects.toBeInstanceOf(PinMismatchError);
    expect(impostor.output()).not.toContain("/device/v1/events");
    expect(client.queue.map((e) => e.event_id)).toEqual([event.event_id]);
    await impostor.stop();

    // Back on the real box (same certificate), the queue is delivered with the next heartbeat.
    const again = await start({ dataDir, tls: true, port });
    expect((await client.heartbeat()).status).toBe(200);
    expect(client.queue).toEqual([]);
    // The log line is read from the process's stdout a moment after the answer.
    await until("the real box logs the event", () => again.output().includes("/device/v1/events") || undefined);
  });

  test("a suspended license keeps the phone's events; once reactivated, the heartbeat delivers them", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    await start({ dataDir, tls: true });
    const { client } = await DeviceClient.pair(await pairingUri(dataDir, tenantId), phone);
    expect((await cli(dataDir, ["license", "set", "--tenant", tenantId, "--status", "suspended"])).code).toBe(0);
    const event = phoneEvent();
    let res = await client.sendEvent(event);
    for (let i = 0; i < 40 && res.status !== 403; i++) {
      await Bun.sleep(50); // contract §1: CLI changes reach the server within 1 s
      res = await client.sendEvent(event);
    }
    expect(res.status).toBe(403);
    expect(client.queue.map((e) => e.event_id)).toEqual([event.event_id]);
    expect((await client.heartbeat()).status).toBe(403);
    expect(client.queue).toHaveLength(1);

    expect((await cli(dataDir, ["license", "set", "--tenant", tenantId, "--status", "active"])).code).toBe(0);
    let beat = await client.heartbeat();
    for (let i = 0; i < 40 && beat.status !== 200; i++) {
      await Bun.sleep(50);
      beat = await client.heartbeat();
    }
    expect(beat.status).toBe(200);
    expect(client.queue).toEqual([]); // removed only once the box answered 201 or 200
  });
});

describe("README", () => {
  test("the TypeScript example pairs with a default box (HTTPS, self-signed) and prints what README says, as printed", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    await start({ dataDir, tls: true });
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const example = readme.split("<!-- pair.ts -->")[1]!.split("```ts\n")[1]!.split("```")[0]!;
    // README says: save it as pair.ts in the repository's folder (it imports ./src/...).
    const file = join(ROOT, `.readme-pair-${crypto.randomUUID()}.ts`);
    writeFileSync(file, example);
    try {
      const proc = Bun.spawn(["bun", file, await pairingUri(dataDir, tenantId)], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect(err).toBe("");
      expect(code).toBe(0);
      expect(out).toMatch(/^paired with Bodega Rosa as dev_[A-Za-z0-9]{20}\n201 201 200 0 waiting\n$/);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

const multicast = await multicastWorks();
if (!multicast) console.warn("multicast DNS tests skipped: this machine does not deliver multicast to itself");

describe.if(multicast)("the announcement on the local network (DNS-SD over multicast DNS)", () => {
  const instanceOf = (name: string) => `Cuadra ${name}._cuadra._tcp.local`;

  test("a query for _cuadra._tcp.local gets the instance, its port and its TXT records; shutdown sends a goodbye", async () => {
    const dataDir = temp.dataDir();
    const name = `Tienda ${crypto.randomUUID().slice(0, 8)}`;
    await shop(dataDir, name);
    const box = await start({ dataDir, tls: true, mdns: true });
    const peer = mdnsPeer();
    try {
      const ask = setInterval(() => peer.query("_cuadra._tcp.local", "PTR"), 500);
      peer.query("_cuadra._tcp.local", "PTR");
      const ptr = await until("a PTR answer naming the instance", () =>
        peer.records.find((r) => r.type === "PTR" && r.name === "_cuadra._tcp.local" && r.data === instanceOf(name)),
      );
      clearInterval(ask);
      expect(ptr.ttl).toBeGreaterThan(0);
      const srv = await until("its SRV record", () => peer.records.find((r) => r.type === "SRV" && r.name === instanceOf(name)));
      expect((srv.data as { port: number }).port).toBe(box.port);
      const txt = await until("its TXT record", () => peer.records.find((r) => r.type === "TXT" && r.name === instanceOf(name)));
      expect(txtOf(txt.data)).toEqual({ v: "1", path: "/device/v1", fp: await servedFingerprint(box.port) });

      expect(await box.stop()).toBe(0);
      await until("a goodbye (TTL 0) for the instance", () =>
        peer.records.find((r) => r.type === "PTR" && r.data === instanceOf(name) && r.ttl === 0),
      );
    } finally {
      peer.close();
    }
  });

  test("--no-mdns announces nothing", async () => {
    const dataDir = temp.dataDir();
    const name = `Tienda ${crypto.randomUUID().slice(0, 8)}`;
    await shop(dataDir, name);
    await start({ dataDir, tls: true, mdns: false });
    const peer = mdnsPeer();
    try {
      for (let i = 0; i < 6; i++) {
        peer.query("_cuadra._tcp.local", "PTR");
        await Bun.sleep(500);
      }
      expect(peer.records.filter((r) => String(r.name).startsWith(`Cuadra ${name}`) || r.data === instanceOf(name))).toEqual([]);
    } finally {
      peer.close();
    }
  });

  test("a paired phone finds its box again after the box restarts on another port", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, `Tienda ${crypto.randomUUID().slice(0, 8)}`);
    const first = await start({ dataDir, tls: true, mdns: true, host: "0.0.0.0" });
    const { client } = await DeviceClient.pair(await pairingUri(dataDir, tenantId), phone, { sleep: async () => {} });
    expect((await client.sendEvent(phoneEvent())).status).toBe(201);
    const before = client.credentials.apiBaseUrl;
    expect(await first.stop()).toBe(0);

    const moved = await start({ dataDir, tls: true, mdns: true, host: "0.0.0.0" });
    expect(moved.port).not.toBe(first.port);
    const res = await client.sendEvent(phoneEvent());
    expect(res.status).toBe(201);
    expect(client.credentials.apiBaseUrl).not.toBe(before);
    expect(new URL(client.credentials.apiBaseUrl).port).toBe(String(moved.port));
  });
});
