// contract §1 and §4: activation codes (form, normalisation, storage, TTL) and the CLI commands
// `code create`, `device list`, `device revoke`, run in-process.
import { afterAll, describe, expect, test } from "bun:test";
import { commands } from "../src/cli/commands";
import { runCli } from "../src/cli/framework";
import { CODE_ALPHABET, createActivationCode, formatCode, normalizeCode } from "../src/device/codes";
import { sha256Hex } from "../src/ids";
import { secretHash } from "../src/store/secret-hash";
import { isOnline } from "../src/device/model";
import { ManualClock } from "../src/clock";
import { activatePhone } from "./support/device";
import { makeTestApp } from "./support/harness";
import { decodePng, decodeTerminalQr } from "./support/qr";
import { recordBoxAddress } from "../src/pairing/box-address";
import { fingerprintOfPem, parsePairingUri } from "../src/pairing/uri";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FP = "bd5d8d31c0a2f7e94b1d6c3a8e5f2b7d9c4e1a6f3b8d2c7e5a9f1b4d6c8e2a09";

const t = await makeTestApp();
afterAll(() => t.close());

describe("normalizeCode", () => {
  test.each([
    ["WDJB-MJHT-KXQP", "WDJBMJHTKXQP"],
    ["wdjb-mjht-kxqp", "WDJBMJHTKXQP"],
    ["wdjb mjht kxqp", "WDJBMJHTKXQP"],
    [" w d j b m j h t k x q p ", "WDJBMJHTKXQP"],
    ["WDJBMJHTKXQP", "WDJBMJHTKXQP"],
    ["--wdjb--MJHT\tkxqp-", "WDJBMJHTKXQP"],
    ["WDJB\u00a0MJHT\u00a0KXQP", "WDJBMJHTKXQP"], // non-breaking spaces are spaces
  ])("%p reads as %p", (input, letters) => {
    expect(normalizeCode(input)).toBe(letters);
  });

  test.each([
    ["WDJB-MJHT-KXQ", "11 letters"],
    ["WDJB-MJHT-KXQPB", "13 letters"],
    ["WDJB-MJHT-KXQA", "a vowel"],
    ["WDJB-MJHT-KXQ1", "a digit"],
    ["WDJB_MJHT_KXQP", "underscores"],
    ["", "empty"],
    ["WDJB-MJHT-KXQ\u017f", "a long s (ſ), which upper-cases to S"],
    ["WDJB-MJHT-\u212aXQP", "a Kelvin sign, which lower-cases to k"],
    ["ＷDJB-MJHT-KXQP", "a full-width W"],
  ])("%p is not a code (%s)", (input) => {
    expect(normalizeCode(input)).toBeNull();
  });
});

describe("createActivationCode", () => {
  test("three groups of four letters of the alphabet, different every time", () => {
    const tenant = t.tenant();
    const seen = new Set<string>();
    const letterCounts = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const { code } = createActivationCode(t.store.db, t.clock, tenant.tenant_id, "live");
      expect(code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}$`));
      seen.add(code);
      for (const c of code.replace(/-/g, "")) letterCounts.set(c, (letterCounts.get(c) ?? 0) + 1);
    }
    expect(seen.size).toBe(200);
    // 2 400 letters over 20 symbols: every letter appears (a biased or constant source would not).
    expect(letterCounts.size).toBe(CODE_ALPHABET.length);
  });

  test("only an HMAC of the letters under the master key is stored (contract §20)", () => {
    const tenant = t.tenant();
    const { code } = createActivationCode(t.store.db, t.clock, tenant.tenant_id, "test");
    const letters = code.replace(/-/g, "");
    const dump = JSON.stringify(t.store.sqlite.query("SELECT * FROM activation_codes").all());
    expect(dump).not.toContain(letters);
    expect(dump).not.toContain(code);
    expect(dump).toContain(secretHash(t.store, letters));
    expect(dump).not.toContain(sha256Hex(letters)); // a copy of the database alone cannot be searched
    expect(formatCode(letters)).toBe(code);
  });

  test("TTL: 900 s by default, up to 259 200 s, nothing outside", () => {
    const tenant = t.tenant();
    expect(createActivationCode(t.store.db, t.clock, tenant.tenant_id, "live").expires_at).toBe(t.clock.now() + 900_000);
    expect(createActivationCode(t.store.db, t.clock, tenant.tenant_id, "live", 259_200).expires_at).toBe(t.clock.now() + 259_200_000);
    expect(() => createActivationCode(t.store.db, t.clock, tenant.tenant_id, "live", 259_201)).toThrow(RangeError);
    expect(() => createActivationCode(t.store.db, t.clock, tenant.tenant_id, "live", 0)).toThrow(RangeError);
  });
});

describe("CLI", () => {
  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(commands, [...args, "--data-dir", t.dataDir], {
      env: {},
      clock: t.clock,
      out: (s) => out.push(s),
      err: (s) => err.push(s),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  test("code create --json prints one JSON document with the code, its expiry and its pairing URI (§17)", async () => {
    const tenant = t.tenant();
    recordBoxAddress(t.dataDir, { url: "https://192.168.1.20:9443", fp: FP });
    const r = await run(["code", "create", "--tenant", tenant.tenant_id, "--env", "test", "--ttl", "600", "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toEqual({
      code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}-[A-Z]{4}$/),
      tenant_id: tenant.tenant_id,
      environment: "test",
      expires_at: t.clock.now() + 600_000,
      pairing_uri: `cuadra://pair?url=https%3A%2F%2F192.168.1.20%3A9443&code=${doc.code}&fp=${FP}`,
    });
    const row = t.store.sqlite.query("SELECT environment, expires_at FROM activation_codes WHERE code_hash = ?").get(secretHash(t.store, doc.code.replace(/-/g, "")));
    expect(row).toEqual({ environment: "test", expires_at: t.clock.now() + 600_000 });
  });

  test("code create without --json writes the code, the URI, and draws a QR code of the pairing URI", async () => {
    const tenant = t.tenant();
    recordBoxAddress(t.dataDir, { url: "http://10.0.0.7:8443", fp: null });
    const r = await run(["code", "create", "--tenant", tenant.tenant_id, "--env", "live"]);
    expect(r.code).toBe(0);
    const code = /Activation code: ([A-Z]{4}-[A-Z]{4}-[A-Z]{4})/.exec(r.out)![1];
    const uri = `cuadra://pair?url=http%3A%2F%2F10.0.0.7%3A8443&code=${code}`;
    expect(r.out.trimEnd().endsWith(`Pairing URI: ${uri}`)).toBe(true);
    expect(r.out).toContain("type the code and the address 10.0.0.7:8443");
    expect(decodeTerminalQr(r.out)).toBe(uri);
  });

  test("before any serve, the URI names what a default serve uses: port 8443 and the data dir's certificate", async () => {
    const other = await makeTestApp();
    const dir = other.dataDir;
    try {
      const tenant = other.tenant();
      const out: string[] = [];
      const code = await runCli(commands, ["code", "create", "--tenant", tenant.tenant_id, "--env", "live", "--json", "--data-dir", dir], {
        env: {},
        clock: other.clock,
        out: (x) => out.push(x),
        err: () => {},
      });
      expect(code).toBe(0);
      const pairing = parsePairingUri(JSON.parse(out.join("")).pairing_uri);
      expect(pairing.url).toMatch(/^https:\/\/[^/]+:8443$/);
      expect(pairing.fp).toBe(fingerprintOfPem(readFileSync(join(dir, "tls", "cert.pem"), "utf8")));
    } finally {
      other.close();
    }
  });

  test("--qr-png writes the pairing QR code as an image", async () => {
    const tenant = t.tenant();
    recordBoxAddress(t.dataDir, { url: "https://192.168.1.20:8443", fp: FP });
    const png = join(mkdtempSync(join(tmpdir(), "cuadra-png-")), "pair.png");
    const r = await run(["code", "create", "--tenant", tenant.tenant_id, "--env", "live", "--json", "--qr-png", png]);
    expect(r.code).toBe(0);
    expect(decodePng(png)).toBe(JSON.parse(r.out).pairing_uri);
  });

  test("code create refuses a TTL above 259 200 s or an unknown tenant", async () => {
    const tenant = t.tenant();
    const before = t.store.sqlite.query("SELECT count(*) AS n FROM activation_codes").get();
    expect((await run(["code", "create", "--tenant", tenant.tenant_id, "--env", "live", "--ttl", "259201"])).code).toBe(2);
    expect((await run(["code", "create", "--tenant", tenant.tenant_id, "--env", "prod"])).code).toBe(2);
    const unknown = await run(["code", "create", "--tenant", "ten_nope", "--env", "live"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("ten_nope");
    expect(t.store.sqlite.query("SELECT count(*) AS n FROM activation_codes").get()).toEqual(before);
  });

  test("device list and device revoke", async () => {
    const phone = await activatePhone(t, { label: "Mostrador" });
    const list = await run(["device", "list", "--tenant", phone.tenantId, "--json"]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual([
      { device_id: phone.deviceId, label: "Mostrador", platform: "android", environment: "live", status: "active", last_seen_at: null },
    ]);
    const revoked = await run(["device", "revoke", phone.deviceId, "--json"]);
    expect(JSON.parse(revoked.out)).toEqual({ device_id: phone.deviceId, status: "revoked" });
    // Twice is harmless.
    expect((await run(["device", "revoke", phone.deviceId, "--json"])).code).toBe(0);
    expect(JSON.parse((await run(["device", "list", "--tenant", phone.tenantId, "--json"])).out)[0].status).toBe("revoked");
    const missing = await run(["device", "revoke", "dev_nope"]);
    expect(missing.code).toBe(1);
  });
});

test("isOnline: within three heartbeat intervals of the newest signed heartbeat", () => {
  const now = new ManualClock().now();
  expect(isOnline(null, now)).toBe(false);
  expect(isOnline(now - 180_000, now)).toBe(true);
  expect(isOnline(now - 180_001, now)).toBe(false);
});
