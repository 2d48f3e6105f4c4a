// `bun run src/main.ts <command>` behaves as the built binary does (contract §1): same documents,
// same exit codes, output never cut short, from any working directory.
import { expect, setDefaultTimeout, test } from "bun:test";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ManualClock } from "../src/clock";
import { openStore } from "../src/store/db";
import { createTenant } from "../src/tenants/service";
import { tempDirsRemovedAfterAll } from "./support/e2e";

setDefaultTimeout(30_000);

const MAIN = resolve(import.meta.dir, "../src/main.ts");
// Every temporary folder made here is removed at the end.
const { mkdtemp: mkdtempSync } = tempDirsRemovedAfterAll();

async function fromSource(args: string[]) {
  const proc = Bun.spawn(["bun", "run", MAIN, ...args], { cwd: tmpdir(), stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

test("documents and exit codes from source", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cuadra-src-"));
  const created = await fromSource(["tenant", "create", "--name", "Desde fuente", "--json", "--data-dir", dir]);
  expect(created.code).toBe(0);
  const doc = JSON.parse(created.stdout);
  expect(Object.keys(doc).sort()).toEqual(["keys", "name", "tenant_id"]);
  const license = await fromSource(["license", "show", "--tenant", doc.tenant_id, "--json", "--data-dir", dir]);
  expect(JSON.parse(license.stdout)).toEqual({ status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 0, expires_at: null });

  const usage = await fromSource(["key", "create", "--tenant", doc.tenant_id, "--env", "staging", "--data-dir", dir]);
  expect(usage.code).toBe(2);
  expect(usage.stderr.trim().split("\n")).toHaveLength(1);
  const failure = await fromSource(["key", "revoke", "key_nope", "--data-dir", dir]);
  expect(failure.code).toBe(1);
  expect(failure.stderr).toStartWith("error: ");
  expect((await fromSource([])).code).toBe(2);
});

test("a long --json document is printed whole through a pipe", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cuadra-src-"));
  const store = openStore(dir);
  const clock = new ManualClock();
  for (let i = 0; i < 1500; i++) createTenant(store.db, clock, `Tienda número ${i} de la avenida principal`);
  store.close();
  // Through a shell pipe, which holds 64 KiB: the size at which the compiled binary once cut its output.
  const proc = Bun.spawn(["sh", "-c", `bun run "${MAIN}" tenant list --json --data-dir "${dir}" | cat`], { cwd: tmpdir(), stdout: "pipe" });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  expect(code).toBe(0);
  expect(stdout.length).toBeGreaterThan(65_536);
  expect(JSON.parse(stdout)).toHaveLength(1500);
});
