// install.sh --system's service (issue 15): the merchant's settings live in /etc/default/cuadra, which
// install.sh writes once and never again; the unit, which holds none, is written anew and reads it.
// The script is sourced (it then only defines its functions) with every path moved into a temporary
// folder and a systemctl that records what it was asked.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ManualClock } from "../src/clock";
import { commands } from "../src/cli/commands";
import { GLOBAL_OPTIONS, runCli } from "../src/cli/framework";
import { serveCommand } from "../src/cli/serve";

const INSTALL = resolve(import.meta.dir, "../install.sh");
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function machine() {
  const root = mkdtempSync(join(tmpdir(), "cuadra-install-"));
  made.push(root);
  const paths = {
    unit: join(root, "etc/systemd/system/cuadra.service"),
    settings: join(root, "etc/default/cuadra"),
    bin: join(root, "usr/local/bin"),
    data: join(root, "var/lib/cuadra"),
    systemctlLog: join(root, "systemctl.log"),
  };
  const stubs = join(root, "stubs");
  mkdirSync(stubs);
  writeFileSync(join(stubs, "systemctl"), `#!/bin/sh\necho "$*" >> '${paths.systemctlLog}'\n`);
  chmodSync(join(stubs, "systemctl"), 0o755);
  const env = {
    ...process.env,
    PATH: `${stubs}:${process.env.PATH}`,
    CUADRA_UNIT_DIR: join(root, "etc/systemd/system"),
    CUADRA_DEFAULTS_FILE: paths.settings,
    CUADRA_BIN_DIR: paths.bin,
    CUADRA_SYSTEM_DATA_DIR: paths.data,
    OWNER: "cuadra",
  };
  /** install.sh's service step, as `sudo ./install.sh --system` runs it once systemd is found. */
  const installService = () => {
    const p = Bun.spawnSync(["bash", "-c", `source '${INSTALL}' && install_service`], { env, cwd: root });
    return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
  };
  const read = (f: string) => readFileSync(f, "utf8");
  return { root, paths, installService, read };
}

const execStart = (unit: string) => unit.split("\n").find((l) => l.startsWith("ExecStart="));

describe("install.sh --system: the service's settings", () => {
  test("the first install writes a commented settings file and a unit that reads it", () => {
    const m = machine();
    const first = m.installService();
    expect(first.code).toBe(0);
    expect(first.out).toContain(`Writing the service's settings to ${m.paths.settings}`);
    const settings = m.read(m.paths.settings);
    expect(settings).toContain('\nCUADRA_SERVE_OPTIONS=""\n');
    expect(settings).toContain("\nLANG=es_PE.UTF-8\n");
    expect(settings).toContain("\n#TZ=America/Lima\n");
    for (const word of ["--port", "--public-url", "--host", "--tls-cert", "--tls-key", "sudo systemctl restart cuadra"]) expect(settings).toContain(word);
    expect(statSync(m.paths.settings).mode & 0o777).toBe(0o644);

    const unit = m.read(m.paths.unit);
    expect(unit).toContain(`\nEnvironmentFile=-${m.paths.settings}\n`);
    // $VAR as a word of its own: systemd splits it at spaces into zero or more arguments.
    expect(execStart(unit)).toBe(`ExecStart=${m.paths.bin}/cuadra serve --data-dir ${m.paths.data} --no-init $CUADRA_SERVE_OPTIONS`);
    expect(unit).toContain("\nUser=cuadra\n");
    expect(m.read(m.paths.systemctlLog)).toBe("daemon-reload\nenable cuadra.service\nrestart cuadra.service\n");
  });

  test("a re-install keeps an edited settings file byte for byte, says so, and the new unit still reads it", () => {
    const m = machine();
    expect(m.installService().code).toBe(0);
    const edited = m.read(m.paths.settings).replace('CUADRA_SERVE_OPTIONS=""', 'CUADRA_SERVE_OPTIONS="--port 9443 --public-url https://caja.example.pe"').replace("#TZ=", "TZ=");
    writeFileSync(m.paths.settings, edited);
    writeFileSync(m.paths.unit, "[Service]\nExecStart=/old\n"); // the unit is install.sh's: written anew

    const again = m.installService();
    expect(again.code).toBe(0);
    expect(again.out).toContain(`Kept your settings in ${m.paths.settings}`);
    expect(again.out).not.toContain("Writing the service's settings");
    expect(m.read(m.paths.settings)).toBe(edited);
    const unit = m.read(m.paths.unit);
    expect(unit).toContain(`\nEnvironmentFile=-${m.paths.settings}\n`);
    expect(execStart(unit)).toEndWith(" --no-init $CUADRA_SERVE_OPTIONS");
    expect(m.read(m.paths.systemctlLog).match(/restart cuadra.service/g)).toHaveLength(2); // restarted: the settings are read again

    // The file is the kind of assignment list both systemd and a shell read alike.
    const seen = Bun.spawnSync(["bash", "-c", `set -a; . '${m.paths.settings}'; printf '%s|%s|%s' "$CUADRA_SERVE_OPTIONS" "$LANG" "$TZ"`]);
    expect(seen.stdout.toString()).toBe("--port 9443 --public-url https://caja.example.pe|es_PE.UTF-8|America/Lima");
  });

  test("upgrading from a unit whose ExecStart was edited by hand: its options move into the new settings file", () => {
    const m = machine();
    mkdirSync(join(m.paths.unit, ".."), { recursive: true });
    writeFileSync(
      m.paths.unit,
      `[Service]\nEnvironment=NODE_ENV=production\nExecStart=${m.paths.bin}/cuadra serve --data-dir ${m.paths.data} --no-init --port 9000 --public-url https://caja.example.pe\n`,
    );
    const up = m.installService();
    expect(up.code).toBe(0);
    expect(up.out).toContain("It keeps the options your service had: --port 9000 --public-url https://caja.example.pe");
    expect(m.read(m.paths.settings)).toContain('\nCUADRA_SERVE_OPTIONS="--port 9000 --public-url https://caja.example.pe"\n');
    expect(execStart(m.read(m.paths.unit))).toEndWith(" --no-init $CUADRA_SERVE_OPTIONS");
    // the next install reads nothing from the unit: the settings file is there
    const again = m.installService();
    expect(again.out).toContain("Kept your settings");
    expect(again.out).not.toContain("It keeps the options");
    // a settings file removed on purpose comes back as the template: a new unit has no options to carry
    rmSync(m.paths.settings);
    const fresh = m.installService();
    expect(fresh.out).not.toContain("It keeps the options");
    expect(m.read(m.paths.settings)).toContain('\nCUADRA_SERVE_OPTIONS=""\n');
  });

  test("every serve option the settings file names exists, and its example line is accepted by serve", async () => {
    const m = machine();
    m.installService();
    const settings = m.read(m.paths.settings);
    const named = [...new Set([...settings.matchAll(/--([a-z][a-z-]+)/g)].map((x) => x[1]!))];
    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect([name, name in serveCommand.options! || name in GLOBAL_OPTIONS]).toEqual([name, true]);
    const example = /^# {3}CUADRA_SERVE_OPTIONS="([^"]*)"$/m.exec(settings)![1]!;
    const errors: string[] = [];
    // --help after the options: they are all parsed (an unknown one is exit 2), then help is shown.
    const code = await runCli(commands, ["serve", ...example.split(/\s+/), "--help"], { env: {}, clock: new ManualClock(), out: () => {}, err: (e) => errors.push(e) });
    expect([code, errors]).toEqual([0, []]);
  });

  test.skipIf(Bun.which("systemd-analyze") === null)("systemd reads the unit without a complaint", () => {
    const analyze = Bun.which("systemd-analyze")!;
    const m = machine();
    m.installService();
    mkdirSync(m.paths.bin, { recursive: true });
    writeFileSync(join(m.paths.bin, "cuadra"), "#!/bin/sh\n");
    chmodSync(join(m.paths.bin, "cuadra"), 0o755);
    const check = Bun.spawnSync([analyze, "verify", m.paths.unit]);
    expect(check.stderr.toString().split("\n").filter((l) => l.includes("cuadra.service"))).toEqual([]);
    // and it would complain, were the unit wrong
    writeFileSync(m.paths.unit, m.read(m.paths.unit).replace("EnvironmentFile=", "EnvironmentFil="));
    expect(Bun.spawnSync([analyze, "verify", m.paths.unit]).stderr.toString()).toContain("cuadra.service");
  });

  test("run, not sourced, install.sh still does its work (the sourcing guard does not stop it)", () => {
    const help = Bun.spawnSync(["bash", INSTALL, "--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toStartWith("Usage: ./install.sh");
    const wrong = Bun.spawnSync(["bash", INSTALL, "--nope"]);
    expect(wrong.exitCode).toBe(1);
  });
});
