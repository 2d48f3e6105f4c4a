// The commands of contract §1, run in-process on a temporary data dir with a manual clock:
// exactly the --json documents the contract names, and exit codes 0/1/2.
import { parsePairingUri } from "../src/pairing/uri";
import { decodeTerminalQr } from "./support/qr";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commands } from "../src/cli/commands";
import { runCli } from "../src/cli/framework";
import { ManualClock } from "../src/clock";
import { VERSION } from "../src/version";
import { createSignInLink, openSession } from "../src/console/sessions";
import { openStore } from "../src/store/db";
import { runCuadra } from "./support/cli";

const clock = new ManualClock();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cuadra-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cuadra = (...argv: string[]) => runCuadra(dir, argv, { clock });

const LIVE_KEY = /^sk_live_[0-9A-Za-z]{32,}$/;
const TEST_KEY = /^sk_test_[0-9A-Za-z]{32,}$/;
const CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

let tenantId: string;

describe("init", () => {
  test("creates the tenant, both keys and a live activation code", async () => {
    const r = await cuadra("init", "--name", "Bodega Rosa", "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      tenant_id: expect.stringMatching(/^ten_/),
      name: "Bodega Rosa",
      keys: { live: expect.stringMatching(LIVE_KEY), test: expect.stringMatching(TEST_KEY) },
      activation_code: {
        code: expect.stringMatching(CODE),
        tenant_id: r.json.tenant_id,
        environment: "live",
        expires_at: clock.now() + 900_000,
        pairing_uri: expect.stringMatching(/^cuadra:\/\/pair\?url=https%3A%2F%2F[^&]+%3A8443&code=[A-Z-]{14}&fp=[0-9a-f]{64}$/),
      },
      pairing_uri: r.json.activation_code.pairing_uri, // contract §17: init's --json adds pairing_uri
      // contract §18: init prints a sign-in link for the console too
      console_link: { url: expect.stringMatching(/^https:\/\/[^/]+:8443\/console\/login\?token=[A-Za-z0-9]{40}$/), expires_at: clock.now() + 900_000 },
    });
    expect(parsePairingUri(r.json.pairing_uri).code).toBe(r.json.activation_code.code);
    tenantId = r.json.tenant_id;
  });

  test("a second init refuses (exit 1) and says what to do instead", async () => {
    const r = await cuadra("init", "--name", "Otra");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tenant create");
  });

  test("without --json it prints keys, code and a QR code for people", async () => {
    const other = mkdtempSync(join(tmpdir(), "cuadra-cli-"));
    const out: string[] = [];
    const exit = await runCli(commands, ["init", "--name", "Tienda", "--data-dir", other], { env: {}, clock, out: (t) => out.push(t), err: () => {} });
    rmSync(other, { recursive: true, force: true });
    expect(exit).toBe(0);
    const text = out.join("\n");
    expect(text).toMatch(/live: sk_live_/);
    expect(text).toMatch(/test: sk_test_/);
    const code = /First phone:\nActivation code: ([A-Z]{4}-[A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
    const [phone, browser] = text.split("The shop's console, in a browser:");
    expect(parsePairingUri(decodeTerminalQr(phone!)!).code).toBe(code!); // the QR code, of the pairing URI
    const link = /\n  (https:\/\/\S+\/console\/login\?token=\S+)\n/.exec(browser!)?.[1];
    expect(decodeTerminalQr(browser!)).toBe(link!); // and the console's sign-in link, with its QR code
  });
});

describe("tenant", () => {
  test("create: tenant_id, name and keys shown once", async () => {
    const r = await cuadra("tenant", "create", "--name", "Ferretería Lima", "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ tenant_id: expect.stringMatching(/^ten_/), name: "Ferretería Lima", keys: { live: expect.stringMatching(LIVE_KEY), test: expect.stringMatching(TEST_KEY) } });
  });

  test("list: tenant_id, name, created_at", async () => {
    const r = await cuadra("tenant", "list", "--json");
    expect(r.code).toBe(0);
    expect(r.json).toHaveLength(2);
    for (const t of r.json) expect(Object.keys(t).sort()).toEqual(["created_at", "name", "tenant_id"]);
    expect(r.json.map((t: any) => t.name).sort()).toEqual(["Bodega Rosa", "Ferretería Lima"]);
  });

  test("create without --name is a usage error", async () => {
    expect((await cuadra("tenant", "create")).code).toBe(2);
  });
});

describe("key", () => {
  let keyId: string;
  let key: string;

  test("create: key_id, key, tenant_id, environment", async () => {
    const r = await cuadra("key", "create", "--tenant", tenantId, "--env", "test", "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ key_id: expect.stringMatching(/^key_/), key: expect.stringMatching(TEST_KEY), tenant_id: tenantId, environment: "test" });
    keyId = r.json.key_id;
    key = r.json.key;
  });

  test("list: never the key", async () => {
    const r = await cuadra("key", "list", "--tenant", tenantId, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toHaveLength(3);
    for (const k of r.json) expect(Object.keys(k).sort()).toEqual(["created_at", "environment", "key_id", "last4", "prefix", "revoked_at"]);
    expect(r.stdout).not.toContain(key);
    expect(r.json.find((k: any) => k.key_id === keyId)).toMatchObject({ environment: "test", last4: key.slice(-4), revoked_at: null });
  });

  test("revoke: key_id and revoked_at; again keeps the first time", async () => {
    const r = await cuadra("key", "revoke", keyId, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ key_id: keyId, revoked_at: clock.now() });
    clock.advance(1000);
    expect((await cuadra("key", "revoke", keyId, "--json")).json).toEqual({ key_id: keyId, revoked_at: clock.now() - 1000 });
    const list = await cuadra("key", "list", "--tenant", tenantId, "--json");
    expect(list.json.find((k: any) => k.key_id === keyId).revoked_at).toBe(clock.now() - 1000);
  });

  test("errors: bad --env is 2, unknown tenant or key is 1", async () => {
    expect((await cuadra("key", "create", "--tenant", tenantId, "--env", "prod")).code).toBe(2);
    expect((await cuadra("key", "create", "--tenant", "ten_nope", "--env", "live")).code).toBe(1);
    expect((await cuadra("key", "list", "--tenant", "ten_nope")).code).toBe(1);
    const r = await cuadra("key", "revoke", "key_nope");
    expect(r.code).toBe(1);
    expect(r.errLines).toBe(1);
    expect((await cuadra("key", "revoke")).code).toBe(2);
  });
});

describe("license", () => {
  test("show: the license object of §3", async () => {
    const r = await cuadra("license", "show", "--tenant", tenantId, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 0, expires_at: null });
  });

  test("set: each option, answered with the license after the change", async () => {
    expect((await cuadra("license", "set", "--tenant", tenantId, "--plan", "pro", "--max-devices", "8", "--json")).json).toEqual({
      status: "active",
      reason: null,
      plan: "pro",
      max_devices: 8,
      devices_in_use: 0,
      expires_at: null,
    });
    expect((await cuadra("license", "set", "--tenant", tenantId, "--status", "suspended", "--json")).json).toMatchObject({ status: "suspended", reason: "suspended" });
    expect((await cuadra("license", "set", "--tenant", tenantId, "--status", "active", "--json")).json).toMatchObject({ status: "active", reason: null });
    const past = clock.now() - 1;
    expect((await cuadra("license", "set", "--tenant", tenantId, "--expires-at", String(past), "--json")).json).toMatchObject({
      status: "suspended",
      reason: "expired",
      expires_at: past,
    });
    expect((await cuadra("license", "set", "--tenant", tenantId, "--expires-at", "none", "--json")).json).toMatchObject({ status: "active", expires_at: null });
  });

  test("bad values are usage errors", async () => {
    for (const args of [
      ["--status", "paused"],
      ["--max-devices", "-1"],
      ["--max-devices", "two"],
      ["--expires-at", "tomorrow"],
      ["--plan", " "],
    ]) {
      expect((await cuadra("license", "set", "--tenant", tenantId, ...args)).code).toBe(2);
    }
    expect((await cuadra("license", "show", "--tenant", "ten_nope")).code).toBe(1);
  });
});

describe("news", () => {
  test("add: news_id and published_at", async () => {
    const r = await cuadra("news", "add", "--tenant", tenantId, "--title", "Feriado", "--body", "Cerramos el lunes", "--level", "warning", "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ news_id: expect.stringMatching(/^nws_/), published_at: clock.now() });
  });

  test("a bad level is 2; a missing title is 2", async () => {
    expect((await cuadra("news", "add", "--tenant", tenantId, "--title", "t", "--body", "b", "--level", "urgent")).code).toBe(2);
    expect((await cuadra("news", "add", "--tenant", tenantId, "--body", "b")).code).toBe(2);
  });
});

describe("code and device", () => {
  test("code create: code, tenant_id, environment, expires_at (TTL default 900 s, at most 259200)", async () => {
    const r = await cuadra("code", "create", "--tenant", tenantId, "--env", "test", "--json");
    expect(r.json).toEqual({
      code: expect.stringMatching(CODE),
      tenant_id: tenantId,
      environment: "test",
      expires_at: clock.now() + 900_000,
      pairing_uri: expect.stringContaining(`&code=${r.json.code}&fp=`),
    });
    expect((await cuadra("code", "create", "--tenant", tenantId, "--env", "live", "--ttl", "259200", "--json")).json.expires_at).toBe(clock.now() + 259_200_000);
    expect((await cuadra("code", "create", "--tenant", tenantId, "--env", "live", "--ttl", "259201")).code).toBe(2);
    expect((await cuadra("code", "create", "--tenant", tenantId, "--env", "live", "--ttl", "0")).code).toBe(2);
  });

  test("device list is [] for a tenant without phones; revoking an unknown device is 1", async () => {
    expect((await cuadra("device", "list", "--tenant", tenantId, "--json")).json).toEqual([]);
    expect((await cuadra("device", "revoke", "dev_nope")).code).toBe(1);
  });
});

describe("console (contract §18)", () => {
  test("link: a one-time sign-in URL at the box's address, valid 900 s by default, at most 86400", async () => {
    const r = await cuadra("console", "link", "--tenant", tenantId, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ url: expect.stringMatching(/^https:\/\/[^/]+:8443\/console\/login\?token=[A-Za-z0-9]{40}$/), expires_at: clock.now() + 900_000 });
    expect((await cuadra("console", "link", "--tenant", tenantId, "--ttl", "86400", "--json")).json.expires_at).toBe(clock.now() + 86_400_000);
    const tooLong = await cuadra("console", "link", "--tenant", tenantId, "--ttl", "86401");
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain("--ttl must be a time from 1s to 1d");
    expect((await cuadra("console", "link", "--tenant", "ten_nope")).code).toBe(1);
  });

  test("link without --json: the URL and its QR code", async () => {
    const r = await cuadra("console", "link", "--tenant", tenantId);
    const url = /\n  (https:\/\/\S+)\n/.exec(r.stdout)?.[1];
    expect(url).toContain("/console/login?token=");
    expect(decodeTerminalQr(r.stdout)).toBe(url!);
    expect(r.stdout).toContain("works once");
  });

  test("sessions and revoke: one, or every one of a shop", async () => {
    const store = openStore(dir);
    const open = () => openSession(store.db, createSignInLink(store.db, tenantId, 900, clock.now()).token, "Chrome", clock.now());
    const [a, b] = [open(), open()];
    store.close();
    const listed = await cuadra("console", "sessions", "--tenant", tenantId, "--json");
    expect(listed.json.map((x: any) => x.session_id).sort()).toEqual([a.session_id, b.session_id].sort());
    expect(Object.keys(listed.json[0]).sort()).toEqual(["created_at", "environment", "expires_at", "session_id", "user_agent"]);
    expect((await cuadra("console", "revoke", a.session_id, "--json")).json).toEqual({ session_id: a.session_id, revoked_at: clock.now() });
    expect((await cuadra("console", "sessions", "--tenant", tenantId, "--json")).json.map((x: any) => x.session_id)).toEqual([b.session_id]);
    expect((await cuadra("console", "revoke", "--all", "--tenant", tenantId, "--json")).json).toEqual({ tenant_id: tenantId, revoked: 1 });
    expect((await cuadra("console", "sessions", "--tenant", tenantId, "--json")).json).toEqual([]);
    expect((await cuadra("console", "revoke", "ses_nope")).code).toBe(1);
    expect((await cuadra("console", "revoke")).code).toBe(2);
    expect((await cuadra("console", "revoke", a.session_id, "--all", "--tenant", tenantId)).code).toBe(2);
  });
});

describe("backup", () => {
  test("writes a consistent copy: file and bytes; the copy opens and has the data", async () => {
    const file = join(dir, "copy.db");
    const r = await cuadra("backup", "--to", file, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ file, bytes: expect.any(Number) });
    expect(r.json.bytes).toBeGreaterThan(4096);
    const copy = new Database(file, { readonly: true });
    expect(copy.query("SELECT count(*) AS n FROM tenants").get()).toEqual({ n: 2 });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    copy.close();
  });

  test("never overwrites a file (exit 1); --to is required (exit 2)", async () => {
    const file = join(dir, "copy.db");
    expect(existsSync(file)).toBe(true);
    expect((await cuadra("backup", "--to", file)).code).toBe(1);
    expect((await cuadra("backup")).code).toBe(2);
  });

  test("human output reminds to keep master.key", async () => {
    const r = await cuadra("backup", "--to", join(dir, "copy2.db"));
    expect(r.stdout).toContain("master.key");
  });
});

test("version", async () => {
  expect((await cuadra("version", "--json")).json).toEqual({ version: VERSION });
  expect((await cuadra("version")).stdout).toBe(`cuadra ${VERSION}`);
});

test("every command of §1 exists and answers --help with exit 0", async () => {
  const paths = commands.map((c) => c.path.join(" "));
  expect(paths).toEqual(
    expect.arrayContaining([
      "serve",
      "init",
      "tenant create",
      "tenant list",
      "key create",
      "key list",
      "key revoke",
      "code create",
      "device list",
      "device revoke",
      "license show",
      "license set",
      "news add",
      "backup",
      "version",
    ]),
  );
  for (const c of commands) {
    const r = await cuadra(...c.path, "--help");
    expect({ cmd: c.path.join(" "), code: r.code }).toEqual({ cmd: c.path.join(" "), code: 0 });
    for (const name of Object.keys(c.options ?? {})) expect(r.stdout).toContain(`--${name}`);
  }
});
