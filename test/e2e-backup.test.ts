// Backups over the built binary (issue 15): a backup taken while the box serves restores a whole box
// elsewhere, with the same certificate, so the same phone goes on working; a box whose master.key is
// gone, or whose database is damaged, refuses to start and says what to do.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, existsSync, openSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeviceClient } from "../src/client/device-client";
import { fingerprintForPeople } from "../src/pairing/uri";
import { BINARY, buildBinary, cli, freePort, phoneEvent, createShop, servedFingerprint, serversKilledAfterAll, tempDirsRemovedAfterAll } from "./support/e2e";

// Boxes that make their certificate (an RSA key) on a busy machine.
setDefaultTimeout(60_000);

const temp = tempDirsRemovedAfterAll();
const start = serversKilledAfterAll();

const phone = { device_label: "Caja 1", app_version: "1.4.0", platform: "android" as const, os_version: "14" };

const shop = createShop;

/** `serve` on a data dir expected to refuse to start: its exit code and what it said. */
async function serveRefused(dataDir: string): Promise<{ code: number; stderr: string; stdout: string }> {
  await buildBinary();
  const proc = Bun.spawn([BINARY, "serve", "--host", "127.0.0.1", "--port", String(await freePort()), "--tls", "off", "--no-mdns", "--data-dir", dataDir], {
    cwd: tmpdir(),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NODE_ENV: "production" },
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000); // a server that started after all
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("a box restored from a backup taken while it served", () => {
  test("has the same certificate; the same phone's signed requests verify, and its earlier event is there", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    const port = await freePort();
    const box = await start({ dataDir, tls: true, port });
    const code = await cli(dataDir, ["code", "create", "--tenant", tenantId, "--env", "live", "--json"]);
    const { client, activation } = await DeviceClient.pair(code.json.pairing_uri, phone, { discover: async () => null, maxRetries: 1, sleep: async () => {} });
    const first = phoneEvent();
    const sent = await client.sendEvent(first);
    expect(sent.status).toBe(201);

    // While it serves: the backup, and a restore into its folder is refused (the server holds it).
    const file = join(temp.mkdtemp(join(tmpdir(), "cuadra-backups-")), "caja.cuadra");
    const backup = await cli(dataDir, ["backup", "--to", file, "--json"]);
    expect(backup.code).toBe(0);
    expect(backup.json).toEqual({ file, bytes: statSync(file).size });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const busy = await cli(dataDir, ["restore", "--from", file, "--force"]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("is running on the data folder");
    expect(await box.stop()).toBe(0);

    const restored = join(temp.mkdtemp(join(tmpdir(), "cuadra-new-box-")), "data");
    const restore = await cli(restored, ["restore", "--from", file, "--json"]);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(restore.json).toMatchObject({ restored_from: file, data_dir: restored, shops: [{ tenant_id: tenantId, name: "Bodega Rosa" }], devices: 1, payments: 1, fingerprint: activation.tls_fingerprint });
    expect(readdirSync(restored).sort()).toEqual(["cuadra.db", "master.key", "serve.lock", "tls"]);

    // The new box, at the address the phone knows.
    const again = await start({ dataDir: restored, tls: true, port });
    expect(await servedFingerprint(port)).toBe(activation.tls_fingerprint!);
    expect(again.output()).toContain(fingerprintForPeople(activation.tls_fingerprint!));
    const hb = await client.heartbeat({ battery_level: 70 });
    expect(hb.status).toBe(200);
    const replay = await client.sendEvent(first);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(sent.body);
    expect((await client.sendEvent(phoneEvent())).status).toBe(201);
    expect(await again.stop()).toBe(0);
  });
});

describe("a box refuses to start on key material or a database that is not sound", () => {
  test("master.key deleted: serve exits 1, says to put it back from the backup, and makes no new key", async () => {
    const dataDir = temp.dataDir();
    await shop(dataDir, "Bodega Rosa");
    rmSync(join(dataDir, "master.key"));
    const r = await serveRefused(dataDir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the key file ${join(dataDir, "master.key")} is missing`);
    expect(r.stderr).toContain("cuadra restore --from FILE");
    expect(r.stderr).toContain("Do not delete the database");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dataDir, "master.key"))).toBe(false);
    expect(existsSync(join(dataDir, "tls"))).toBe(false); // nothing else was made either
  });

  test("a damaged database: serve exits 1 and says to restore the last backup, keeping the folder", async () => {
    const dataDir = temp.dataDir();
    const tenantId = await shop(dataDir, "Bodega Rosa");
    const box = await start({ dataDir });
    expect(await box.stop()).toBe(0);
    // A few thousand payments, then a few pages in the middle of the file overwritten.
    const db = new Database(join(dataDir, "cuadra.db"));
    const insert = db.prepare(
      `INSERT INTO events (event_id, device_id, tenant_id, environment, kind, source, amount, currency, payer_name, occurred_at, received_at,
         body_hash, response_status, response_body, match_status) VALUES (?, NULL, ?, 'live', 'payment.received', 'yape', ?, 'PEN', 'Yanina Man*', ?, ?, 'h', 201, '{}', 'unmatched')`,
    );
    db.transaction(() => {
      for (let i = 0; i < 4000; i++) insert.run(`evt-${i}`, tenantId, 100 + i, i, i);
    })();
    insert.finalize();
    db.close(); // the last connection: the WAL is written into the database file and removed
    expect(existsSync(join(dataDir, "cuadra.db-wal"))).toBe(false);
    const size = statSync(join(dataDir, "cuadra.db")).size;
    const fd = openSync(join(dataDir, "cuadra.db"), "r+");
    writeSync(fd, Buffer.alloc(4 * 4096, 0x5a), 0, 4 * 4096, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);

    const r = await serveRefused(dataDir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the database ${join(dataDir, "cuadra.db")} is damaged`);
    expect(r.stderr).toContain(`cuadra restore --from FILE --force --data-dir ${dataDir}`);
    expect(r.stderr).toContain("Do not delete the data folder");
    expect(r.stdout).not.toContain("is running");
  });
});
