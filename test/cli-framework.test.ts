// The command-line framework: parsing, --help, --json, data dir, exit codes 0/1/2 (contract §1).
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../src/clock";
import { readEnvironment, readInt, requireString, runCli, UsageError, type Command } from "../src/cli/framework";
import { NewerDataError, type Store } from "../src/store/db";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let opened: Store | undefined;

const commands: Command[] = [
  {
    path: ["thing", "make"],
    summary: "cli.cmd.version",
    options: {
      name: { type: "string", value: "NAME", required: true, description: "cli.opt.title" },
      count: { type: "string", value: "N", description: "cli.opt.title" },
      loud: { type: "boolean", description: "cli.opt.title" },
    },
    run: (_ctx, o) => ({ name: o.name, count: readInt(o, "count", 1, 10) ?? 1, loud: o.loud === true }),
  },
  { path: ["thing"], summary: "cli.cmd.version", run: () => ({ short: true }) },
  { path: ["thing", "drop"], summary: "cli.cmd.version", args: ["THING_ID"], run: (_c, _o, [id]) => ({ dropped: id }) },
  { path: ["where"], summary: "cli.cmd.version", run: (ctx) => ({ data_dir: ctx.dataDir }) },
  {
    path: ["open"],
    summary: "cli.cmd.version",
    createsDataDir: true,
    run: (ctx) => {
      opened = ctx.store();
      return { tables: opened.sqlite.query("SELECT count(*) AS n FROM sqlite_master").get() };
    },
  },
  { path: ["list"], summary: "cli.cmd.version", run: () => [] },
  { path: ["rows"], summary: "cli.cmd.version", run: () => [{ a: 1, b: { c: 2 } }, { a: 3, b: null }] },
  { path: ["misuse"], summary: "cli.cmd.version", run: () => Promise.reject(new UsageError("cli.usage.required", { option: "--x" })) },
  {
    path: ["broken"],
    summary: "cli.cmd.version",
    run: () => {
      throw new Error("disk full\n  at somewhere\n  at elsewhere");
    },
  },
  { path: ["pretty"], summary: "cli.cmd.version", run: () => ({ n: 3 }), human: async (r) => `there are ${r.n}` },
  { path: ["quiet"], summary: "cli.cmd.version", run: () => undefined },
];

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(commands, argv, { env, clock: new ManualClock(), out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n"), errLines: err };
}

describe("exit codes", () => {
  test("no arguments: one stderr line pointing at --help, exit 2 (usage)", async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toContain("cuadra --help");
  });

  test("--help, -h and help: the overview, exit 0", async () => {
    for (const h of ["--help", "-h", "help"]) {
      const r = await run([h]);
      expect(r.code).toBe(0);
      expect(r.out).toContain("where");
    }
  });

  test("<group> --help lists the group's commands, exit 0; the group alone is a usage error", async () => {
    const groupOnly = commands.filter((c) => c.path.join(" ") !== "thing"); // no command named just "thing"
    const out: string[] = [];
    const code = await runCli(groupOnly, ["thing", "--help"], { env: {}, clock: new ManualClock(), out: (t) => out.push(t), err: () => {} });
    expect(code).toBe(0);
    expect(out.join("")).toContain("thing make");
    expect(out.join("")).toContain("thing drop THING_ID");
    expect(out.join("")).not.toContain("where");
    const err: string[] = [];
    expect(await runCli(groupOnly, ["thing"], { env: {}, clock: new ManualClock(), out: () => {}, err: (t) => err.push(t) })).toBe(2);
    expect(err).toEqual([expect.stringContaining("this group has: thing make, thing drop")]);
  });

  test("an unknown command is a usage error on one stderr line, with a hint", async () => {
    const r = await run(["nope"]);
    expect(r.code).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toContain("unknown command 'nope'");
    expect(r.out).toBe("");
    const sub = await run(["where", "else"]);
    expect(sub.code).toBe(2); // "where" takes no arguments
  });

  test("an unknown option, a missing value, a missing required option, wrong arguments: exit 2", async () => {
    for (const argv of [
      ["thing", "make", "--name", "x", "--colour", "red"],
      ["thing", "make", "--name"],
      ["thing", "make"],
      ["thing", "make", "--name", ""],
      ["thing", "drop"],
      ["thing", "drop", "a", "b"],
      ["thing", "make", "--name", "x", "--count", "11"],
      ["thing", "make", "--name", "x", "--count", "1.5"],
      ["misuse"],
    ]) {
      const r = await run(argv);
      expect({ argv, code: r.code, lines: r.errLines.length }).toEqual({ argv, code: 2, lines: 1 });
      expect(r.err).toStartWith("error: ");
      expect(r.out).toBe("");
    }
  });

  test("any other failure: exit 1, the message on one stderr line", async () => {
    const r = await run(["broken"]);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual(["error: disk full at somewhere at elsewhere"]);
    expect(r.out).toBe("");
  });

  test("success: exit 0", async () => {
    expect((await run(["thing", "make", "--name", "x"])).code).toBe(0);
    expect((await run(["quiet"])).out).toBe("");
  });
});

describe("parsing", () => {
  test("the longest command path wins; options and arguments in any order", async () => {
    expect((await run(["thing", "--json"])).out).toBe('{"short":true}');
    expect(JSON.parse((await run(["thing", "make", "--loud", "--name", "Ana", "--count", "3", "--json"])).out)).toEqual({ name: "Ana", count: 3, loud: true });
    expect(JSON.parse((await run(["thing", "drop", "--json", "thg_1"])).out)).toEqual({ dropped: "thg_1" });
    expect(JSON.parse((await run(["thing", "make", "--name=Bea", "--json"])).out)).toEqual({ name: "Bea", count: 1, loud: false });
  });

  test("--json prints exactly one JSON document", async () => {
    const r = await run(["rows", "--json"]);
    expect(r.out).toBe(JSON.stringify([{ a: 1, b: { c: 2 } }, { a: 3, b: null }]));
    expect((await run(["list", "--json"])).out).toBe("[]");
  });

  test("human output: key: value lines, records apart, (none) for nothing, or the command's own", async () => {
    expect((await run(["rows"])).out).toBe('a: 1\nb: {"c":2}\n\na: 3\nb: null');
    expect((await run(["list"])).out).toBe("(none)");
    expect((await run(["pretty"])).out).toBe("there are 3");
  });

  test("<command> --help shows usage and options, exit 0, without touching the data dir", async () => {
    const dir = join(tmpdir(), `cuadra-never-${Date.now()}`);
    const r = await run(["thing", "make", "--help", "--data-dir", dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Usage: cuadra thing make --name NAME [--count N] [--loud]");
    expect(r.out).toContain("--data-dir DIR");
    expect(r.out).toContain("--json");
    expect((await run(["open", "--help", "--data-dir", dir])).code).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });
});

describe("data dir", () => {
  test("--data-dir, else CUADRA_DATA_DIR, else ./cuadra-data", async () => {
    expect(JSON.parse((await run(["where", "--json"])).out).data_dir).toBe("./cuadra-data");
    expect(JSON.parse((await run(["where", "--json"], { CUADRA_DATA_DIR: "/srv/c" })).out).data_dir).toBe("/srv/c");
    expect(JSON.parse((await run(["where", "--json", "--data-dir", "/x"], { CUADRA_DATA_DIR: "/srv/c" })).out).data_dir).toBe("/x");
    // An empty value (CUADRA_DATA_DIR= in a service file) is no value, not the current folder.
    expect(JSON.parse((await run(["where", "--json"], { CUADRA_DATA_DIR: "" })).out).data_dir).toBe("./cuadra-data");
  });

  test("the store is opened on first use and closed after the command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cuadra-cli-"));
    dirs.push(dir);
    const r = await run(["open", "--json", "--data-dir", dir]);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, "cuadra.db"))).toBe(true);
    expect(() => opened!.sqlite.query("SELECT 1").get()).toThrow(/closed/);
  });

  test("a command that only reads never creates a data folder or a database: it names the folder it looked in", async () => {
    const parent = mkdtempSync(join(tmpdir(), "cuadra-cli-"));
    dirs.push(parent);
    const none = await run(["where", "--data-dir", join(parent, "cuadra-data")]);
    expect(none.code).toBe(0); // a command that does not open the store does not care
    const missing = await run(["rows", "--data-dir", join(parent, "cuadra-data")]);
    expect(missing.code).toBe(0);
    const reading: Command = { path: ["count"], summary: "cli.cmd.version", run: (ctx) => ({ n: ctx.store().sqlite.query("SELECT 1 AS n").get() }) };
    const r1: string[] = [];
    expect(await runCli([reading], ["count", "--data-dir", join(parent, "cuadra-data")], { env: {}, clock: new ManualClock(), out: () => {}, err: (t) => r1.push(t) })).toBe(1);
    expect(r1).toEqual([expect.stringContaining(`there is no Cuadra data folder at ${join(parent, "cuadra-data")}`)]);
    const r2: string[] = [];
    expect(await runCli([reading], ["count", "--data-dir", parent], { env: {}, clock: new ManualClock(), out: () => {}, err: (t) => r2.push(t) })).toBe(1);
    expect(r2).toEqual([expect.stringContaining(`the folder ${parent} holds no Cuadra database (${join(parent, "cuadra.db")})`)]);
    expect(readdirSync(parent)).toEqual([]);
  });

  test("a data dir that cannot be created is a failure (1), not a usage error", async () => {
    const r = await run(["open", "--data-dir", "/proc/cuadra-cannot-be-here"]);
    expect(r.code).toBe(1);
    expect(r.errLines).toHaveLength(1);
  });
});

describe("failures a person can act on", () => {
  const failing = (name: string, fail: () => never): Command => ({ path: [name], summary: "cli.cmd.version", run: fail });
  const explained = async (cmd: Command, LANG = "C") => {
    const err: string[] = [];
    const code = await runCli([cmd], [cmd.path[0]!, "--data-dir", "/srv/cuadra"], { env: { LANG }, clock: new ManualClock(), out: () => {}, err: (t) => err.push(t) });
    return { code, err };
  };

  test("a missing file is named; a folder written by a newer Cuadra says what to install; both in the reader's language", async () => {
    const nofile = failing("read", () => {
      readFileSync("/nonexistent/cert.pem");
      throw new Error("unreachable");
    });
    expect(await explained(nofile)).toEqual({ code: 1, err: ["error: the file /nonexistent/cert.pem does not exist"] });
    expect(await explained(nofile, "es_PE.UTF-8")).toEqual({ code: 1, err: ["error: el archivo /nonexistent/cert.pem no existe"] });
    const newer = failing("old", () => {
      throw new NewerDataError();
    });
    expect(await explained(newer)).toEqual({
      code: 1,
      err: ["error: the data folder /srv/cuadra was written by a newer version of Cuadra; install that version (or a newer one) to use it"],
    });
  });
});

describe("option readers", () => {
  test("requireString, readEnvironment, readInt", () => {
    expect(requireString({ name: "x" }, "name")).toBe("x");
    expect(() => requireString({ name: "  " }, "name")).toThrow(UsageError);
    expect(readEnvironment({ env: "test" })).toBe("test");
    expect(() => readEnvironment({ env: "prod" })).toThrow(UsageError);
    expect(readInt({}, "n", 0, 5)).toBeUndefined();
    expect(readInt({ n: "5" }, "n", 0, 5)).toBe(5);
    expect(readInt({ n: "-1" }, "n", -1, 5)).toBe(-1);
    for (const bad of ["6", "1e2", "0x1", "", " 3", "abc"]) expect(() => readInt({ n: bad }, "n", 0, 5)).toThrow(UsageError);
  });
});
