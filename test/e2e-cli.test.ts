// The command line as a shopkeeper meets it (issue 15), over the real binary: run from the wrong
// folder, a first start on a port in use, a data folder of another user, times in Lima, Spanish.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { BINARY, binaryEnv, buildBinary, cli, freePort, startServer, tempDirsRemovedAfterAll } from "./support/e2e";

const temp = tempDirsRemovedAfterAll();

beforeAll(async () => {
  await buildBinary();
});

/** `cuadra ARGS` as typed in a terminal: in `cwd`, no --data-dir unless given. */
async function typed(cwd: string, args: string[], env: Record<string, string> = {}, prefix: string[] = []) {
  const proc = Bun.spawn([...prefix, BINARY, ...args], { cwd, env: binaryEnv(env), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("run from the wrong folder", () => {
  test("a reading command creates nothing, and says which folder it looked in and how to give another", async () => {
    const cwd = temp.mkdtemp("/tmp/cuadra-cwd-");
    for (const args of [["tenant", "list"], ["code", "create"], ["device", "list", "--json"], ["backup", "--to", "b.db"]]) {
      const r = await typed(cwd, args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: "" });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`there is no Cuadra data folder at ${join(cwd, "cuadra-data")}`);
      expect(r.stderr).toContain("--data-dir DIR (or CUADRA_DATA_DIR=DIR)");
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("a folder without a database is named as such; an unknown shop names the folder and its shops", async () => {
    const empty = temp.mkdtemp("/tmp/cuadra-empty-");
    const r = await typed("/", ["tenant", "list"], { CUADRA_DATA_DIR: empty });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the folder ${empty} holds no Cuadra database (${join(empty, "cuadra.db")})`);
    expect(readdirSync(empty)).toEqual([]);

    const dir = temp.dataDir();
    const init = await cli(dir, ["init", "--name", "Bodega Rosa", "--json"]);
    expect(init.code).toBe(0);
    const unknown = await cli(dir, ["code", "create", "--tenant", "ten_00000000000000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no shop ten_00000000000000000000 in the data folder ${dir}; its shops: ${init.json.tenant_id} (Bodega Rosa)`);
    // With one shop, --tenant is not needed, and code create is for real payments unless told.
    const code = await cli(dir, ["code", "create", "--json"]);
    expect(code.json).toMatchObject({ tenant_id: init.json.tenant_id, environment: "live" });
    const unknownPhone = await cli(dir, ["device", "revoke", "dev_nope"]);
    expect(unknownPhone.stderr).toContain(`no phone dev_nope in the data folder ${dir}`);
  });
});

describe("serve", () => {
  test("a first start on a port in use stops before it creates anything: no folder, no shop, no keys", async () => {
    const port = await freePort();
    const squatter = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    try {
      const parent = temp.mkdtemp("/tmp/cuadra-port-");
      const dataDir = join(parent, "cuadra-data");
      const r = await typed(parent, ["serve", "--host", "127.0.0.1", "--port", String(port), "--name", "Bodega Rosa", "--data-dir", dataDir]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(""); // no keys, no code printed
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr).toContain("--port");
      expect(r.stderr).toContain("Nothing was created");
      expect(existsSync(dataDir)).toBe(false);
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      squatter.stop(true);
    }
  });

  test("--name on a folder that has a shop says it did not rename it, and how to", async () => {
    const dir = temp.dataDir();
    expect((await cli(dir, ["init", "--name", "Bodega Rosa"])).code).toBe(0);
    const s = await startServer({ dataDir: dir, args: ["--name", "Bodega Sur"] });
    expect(await s.stop()).toBe(0);
    const err = await new Response(s.proc.stderr as ReadableStream).text();
    expect(err).toContain(`already has the shop "Bodega Rosa"; --name "Bodega Sur" did not change it. To rename it: cuadra tenant rename --name "Bodega Sur"`);
    expect((await cli(dir, ["tenant", "list", "--json"])).json.map((t: { name: string }) => t.name)).toEqual(["Bodega Rosa"]);
    // The same name again is not worth a word.
    const again = await startServer({ dataDir: dir, args: ["--name", "Bodega Rosa"] });
    expect(await again.stop()).toBe(0);
    expect(await new Response(again.proc.stderr as ReadableStream).text()).not.toContain("did not change");
  });

  test("in Spanish when the system's locale is (LANG=es_PE.UTF-8): the banner and a usage error", async () => {
    const dir = temp.dataDir();
    expect((await cli(dir, ["init", "--name", "Bodega Rosa"])).code).toBe(0);
    const s = await startServer({ dataDir: dir, env: { LANG: "es_PE.UTF-8" } });
    try {
      expect(s.output()).toContain("está funcionando.");
      expect(s.output()).toContain("Presiona Ctrl+C para detenerlo.");
      expect(s.output()).toContain(`Datos: ${dir}`);
    } finally {
      expect(await s.stop()).toBe(0);
    }
    const wrong = await cli(dir, ["devices", "list"], { env: { LANG: "es_PE.UTF-8" } });
    expect([wrong.code, wrong.stderr.trim()]).toEqual([2, "error: no existe el comando 'devices list'; ¿quisiste decir 'cuadra device list'?"]);
  });
});

const isRoot = process.getuid?.() === 0;
const canSwitchUser = isRoot && Bun.which("setpriv") !== null;

describe("a data folder of another user", () => {
  test.if(canSwitchUser)("says whose it is and the command to run instead (sudo -u OWNER cuadra …)", async () => {
    const parent = temp.mkdtemp("/tmp/cuadra-owner-");
    chmodSync(parent, 0o755); // others may look into the parent, not into the data folder (700)
    const dir = join(parent, "cuadra-data");
    expect((await cli(dir, ["init", "--name", "Bodega Rosa"])).code).toBe(0);
    const asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    const r = await typed("/", ["tenant", "list", "--data-dir", dir], {}, asNobody);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error: cannot open ${dir}: it belongs to the user 'root' and you are 'nobody'. Run the command as that user: sudo -u root cuadra tenant list --data-dir ${dir}`,
    );
    const es = await typed("/", ["code", "create", "--data-dir", dir], { LANG: "es_PE.UTF-8" }, asNobody);
    expect(es.stderr).toContain(`pertenece al usuario 'root' y tú eres 'nobody'. Ejecuta el comando como ese usuario: sudo -u root cuadra code create --data-dir ${dir}`);
    // A backup this user may not read is a permission problem, not "not a backup".
    const file = join(parent, "b.cuadra");
    expect((await cli(dir, ["backup", "--to", file])).code).toBe(0);
    const target = join(temp.mkdtemp("/tmp/cuadra-restore-"), "nested");
    chmodSync(dirname(target), 0o777);
    const restore = await typed("/", ["restore", "--from", file, "--data-dir", target], {}, asNobody);
    expect(restore.code).toBe(1);
    expect(restore.stderr.trim()).toBe(
      `error: cannot open ${file}: it belongs to the user 'root' and you are 'nobody'. Run the command as that user: sudo -u root cuadra restore --from ${file} --data-dir ${target}`,
    );
    expect(existsSync(target)).toBe(false);
  });

  test.if(!isRoot)("a folder this user may not read: permission denied, naming it", async () => {
    const dir = temp.dataDir();
    expect((await cli(dir, ["init", "--name", "Bodega Rosa"])).code).toBe(0);
    chmodSync(dir, 0o000);
    try {
      const r = await cli(dir, ["tenant", "list"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot open ${dir}`);
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe("times in the box's time zone (TZ=America/Lima)", () => {
  test("human output names the zone and gives ISO 8601 with the offset; --json stays epoch ms; --expires-at takes a date", async () => {
    const dir = temp.dataDir();
    const lima = { TZ: "America/Lima" };
    expect((await cli(dir, ["init", "--name", "Bodega Rosa"], { env: lima })).code).toBe(0);
    const before = Date.now();
    const code = await cli(dir, ["code", "create", "--ttl", "3d"], { env: lima });
    expect(code.code).toBe(0);
    const line = code.stdout.split("\n")[0]!;
    expect(line).toMatch(/^Activation code: [A-Z]{4}-[A-Z]{4}-[A-Z]{4} {2}\(live, valid for 3 days, until \d{1,2} \w{3} \d{4}, \d\d:\d\d \(America\/Lima, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-05:00\)\)$/);
    const iso = /America\/Lima, ([^)]+)\)/.exec(line)![1]!;
    expect(Math.abs(new Date(iso).getTime() - (before + 3 * 86_400_000))).toBeLessThan(60_000);
    // The hour a person reads is Lima's: UTC-5 all year.
    const localHour = /, (\d\d):\d\d \(America/.exec(line)![1]!;
    expect(Number(localHour)).toBe((new Date(iso).getUTCHours() + 24 - 5) % 24);

    const license = await cli(dir, ["license", "set", "--expires-at", "2027-01-01", "--json"], { env: lima });
    expect(license.json.expires_at).toBe(Date.UTC(2027, 0, 1, 5)); // midnight in Lima
    const shown = await cli(dir, ["license", "show"], { env: lima });
    expect(shown.stdout).toContain("until 1 Jan 2027, 00:00 (America/Lima, 2027-01-01T00:00:00-05:00)");
    const list = await cli(dir, ["tenant", "list"], { env: lima });
    expect(list.stdout).toMatch(/^ten_\w{20} {2}Bodega Rosa {2}\(since .* \(America\/Lima, .*-05:00\)\)\n$/);
  });
});
