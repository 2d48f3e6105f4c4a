// What a person reads from the listing commands (issue 15): phones with online state, battery and
// last seen in words; the license and what a suspension does; a key shown once; a shop renamed.
// In-process over a temporary data folder with a manual clock, in both languages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commands } from "../src/cli/commands";
import { runCli } from "../src/cli/framework";
import { ManualClock } from "../src/clock";
import { openStore, type Db } from "../src/store/db";
import { eq } from "drizzle-orm";
import { devices } from "../src/store/schema";
import { writes } from "../src/writes";

const clock = new ManualClock(Date.UTC(2026, 10, 22, 15, 0));
const dir = mkdtempSync(join(tmpdir(), "cuadra-listings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cuadra(argv: string[], LANG = "C") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(commands, [...argv, "--data-dir", dir], { env: { LANG }, clock, out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

let tenantId = "";
beforeAll(async () => {
  const r = await cuadra(["init", "--name", "Bodega Rosa", "--json"]);
  tenantId = JSON.parse(r.out).tenant_id;
  // Two phones as activation leaves them (setup only); their reports go through the server's own write.
  const store = openStore(dir);
  const phone = (id: string, label: string) =>
    store.db
      .insert(devices)
      .values({ id, tenantId, environment: "live", label, platform: "android", appVersion: "1.4.0", osVersion: "14", secretEnc: "v1.x.y", createdAt: clock.now() })
      .run();
  phone("dev_caja1", "Caja 1");
  phone("dev_caja2", "Caja 2");
  phone("dev_caja3", "Caja 3");
  // Caja 3 sent a payment just now but its last heartbeat is 10 minutes old: offline (§5 is by heartbeat).
  store.db.update(devices).set({ lastHeartbeatAt: clock.now() - 600_000, lastSeenAt: clock.now() }).where(eq(devices.id, "dev_caja3")).run();
  store.db.transaction((tx) =>
    writes.recordHeartbeat(tx as unknown as Db, { now: clock.now(), deviceId: "dev_caja1", signedAt: clock.now(), report: { battery_level: 87, charging: true } }),
  );
  store.close();
});

describe("device list", () => {
  test("online, battery and last seen in words; a phone never seen says so", async () => {
    clock.advance(30_000);
    const r = await cuadra(["device", "list"]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")).toEqual([
      "Caja 1  (dev_caja1, android, live)",
      expect.stringMatching(/^ {2}online · battery 87%, charging · last seen just now \(22 Nov 2026, \d\d:00 \(.+\)\)$/),
      "Caja 2  (dev_caja2, android, live)",
      "  OFFLINE · battery unknown · never connected",
      "Caja 3  (dev_caja3, android, live)",
      expect.stringMatching(/^ {2}OFFLINE · battery unknown · last seen just now/),
    ]);
  });

  test("three minutes without a heartbeat reads offline, with how long ago", async () => {
    clock.advance(4 * 60_000);
    const r = await cuadra(["device", "list"]);
    expect(r.out).toContain("  OFFLINE · battery 87%, charging · last seen 4 min ago");
    const es = await cuadra(["device", "list"], "es_PE.UTF-8");
    expect(es.out).toContain("  SIN CONEXIÓN · batería 87%, cargando · último aviso hace 4 min");
  });

  test("a revoked phone says so; --json stays the contract's document", async () => {
    expect((await cuadra(["device", "revoke", "dev_caja2"])).out).toBe("Phone dev_caja2 revoked: its requests are refused within a second.");
    expect((await cuadra(["device", "list"])).out).toContain("  revoked · battery unknown · never connected");
    const json = JSON.parse((await cuadra(["device", "list", "--json"])).out);
    expect(Object.keys(json[0]).sort()).toEqual(["device_id", "environment", "label", "last_seen_at", "platform", "status"]);
  });
});

describe("license", () => {
  test("suspending says what it does to the phones' payments, and how to undo it", async () => {
    const r = await cuadra(["license", "set", "--status", "suspended"]);
    expect(r.out).toBe(
      "License: SUSPENDED (plan standard, 2 of 5 phones).\nThe phones' payments are refused and not stored, so no order is marked paid. The phones keep them and send them again once the license is active (cuadra license set --status active).",
    );
    expect((await cuadra(["license", "show"], "es_PE.UTF-8")).out).toStartWith("Licencia: SUSPENDIDA (plan standard, 2 de 5 teléfonos).\nLos pagos que envían los teléfonos se rechazan");
    expect((await cuadra(["license", "set", "--status", "active"])).out).toBe("License: active, plan standard, 2 of 5 phones.");
  });

  test("an expiry in the past reads as expired, with the same warning", async () => {
    const r = await cuadra(["license", "set", "--expires-at", String(clock.now() - 1000)]);
    expect(r.out).toMatch(/^License: EXPIRED on 22 Nov 2026, \d\d:04 \(.+\) \(plan standard, 2 of 5 phones\)\.\nThe phones' payments are refused/);
    expect((await cuadra(["license", "set", "--expires-at", "none"])).out).toBe("License: active, plan standard, 2 of 5 phones.");
  });
});

describe("keys and shops", () => {
  test("key create says the key is shown once", async () => {
    const r = await cuadra(["key", "create", "--env", "test"]);
    expect(r.out).toMatch(/^Key for the shop's software \(test\): sk_test_\w{40}\nIt is shown this once only: copy it now into the shop's software settings \(its id is key_\w{20}\)\.$/);
    const es = await cuadra(["key", "create", "--env", "live"], "es_PE.UTF-8");
    expect(es.out).toContain("Se muestra solo esta vez");
  });

  test("key list: never the key, revoked ones marked", async () => {
    const list = (await cuadra(["key", "list"])).out.split("\n");
    expect(list).toHaveLength(4);
    expect(list.every((l) => /^key_\w{20} {2}(live|test) {2}sk_(live|test)_\w{4}…\w{4} {2}made /.test(l))).toBe(true);
    const id = list[0]!.split(" ")[0]!;
    expect((await cuadra(["key", "revoke", id])).out).toStartWith(`Key ${id} revoked 22 Nov 2026`);
    expect((await cuadra(["key", "list"])).out.split("\n")[0]).toContain("  REVOKED 22 Nov 2026");
  });

  test("tenant rename: the new name everywhere, and what still shows the old one", async () => {
    const r = await cuadra(["tenant", "rename", "--name", "Bodega Rosa e Hijos"]);
    expect(r.out).toStartWith(`Shop ${tenantId} is now called "Bodega Rosa e Hijos" (it was "Bodega Rosa").`);
    expect(JSON.parse((await cuadra(["tenant", "list", "--json"])).out)[0].name).toBe("Bodega Rosa e Hijos");
    // --tenant takes the shop's name as well as its id.
    expect((await cuadra(["license", "show", "--tenant", "bodega rosa e hijos", "--json"])).code).toBe(0);
  });
});
