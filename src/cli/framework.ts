// A small command-line framework: one spec per command, shared options, --help, --json, and the
// exit codes of contract §1 (0 ok, 2 usage error, 1 any other failure; errors are one stderr line).
import { parseArgs } from "node:util";
import type { Clock } from "../clock";
import { recognise, type Recognise } from "../notifications/recogniser";
import { openStore, type Store } from "../store/db";

export class UsageError extends Error {}

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  /** Shown in help as the value's name, e.g. "NAME". */
  value?: string;
  required?: boolean;
}

export interface CommandContext {
  dataDir: string;
  json: boolean;
  clock: Clock;
  /** The wallet formats this box reads (contract §16). */
  recognise: Recognise;
  /** Opens the database on first use (so --help never touches the data dir). */
  store(): Store;
  out(text: string): void;
  err(text: string): void;
}

export interface Command {
  /** Words after the program name, e.g. ["key", "create"]. */
  path: string[];
  summary: string;
  /** Positional arguments, e.g. ["KEY_ID"]; an optional one in brackets, e.g. ["[SESSION_ID]"]. */
  args?: string[];
  options?: Record<string, OptionSpec>;
  /** Long-running commands (serve) print for themselves. */
  run(ctx: CommandContext, opts: Record<string, string | boolean | undefined>, args: string[]): Promise<unknown> | unknown;
  /** Human output; the default prints key: value lines. */
  human?(result: any, ctx: CommandContext): string | Promise<string>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  "data-dir": { type: "string", value: "DIR", description: "Data directory (env CUADRA_DATA_DIR, default ./cuadra-data)" },
  json: { type: "boolean", description: "Print exactly one JSON document on stdout" },
  help: { type: "boolean", description: "Show this help" },
};

export function commandHelp(cmd: Command, program = "cuadra"): string {
  const opts = { ...(cmd.options ?? {}), ...GLOBAL_OPTIONS };
  const usage = [program, ...cmd.path, ...(cmd.args ?? []), ...Object.entries(cmd.options ?? {}).map(([n, o]) => {
    const flag = o.type === "string" ? `--${n} ${o.value ?? "VALUE"}` : `--${n}`;
    return o.required ? flag : `[${flag}]`;
  })].join(" ");
  const lines = Object.entries(opts).map(([n, o]) => {
    const flag = o.type === "string" ? `--${n} ${o.value ?? "VALUE"}` : `--${n}`;
    return `  ${flag.padEnd(28)} ${o.description}`;
  });
  return `${cmd.summary}\n\nUsage: ${usage}\n\nOptions:\n${lines.join("\n")}\n`;
}

export function overviewHelp(commands: Command[], program = "cuadra"): string {
  const rows = commands.map((c) => `  ${[...c.path, ...(c.args ?? [])].join(" ").padEnd(26)} ${c.summary}`);
  return `Cuadra: payment confirmation for your shop.\n\nUsage: ${program} <command> [options]\n\nCommands:\n${rows.join("\n")}\n\nRun '${program} <command> --help' for the options of one command.\nEvery command takes --data-dir DIR (env CUADRA_DATA_DIR, default ./cuadra-data) and --json.\n`;
}

function findCommand(commands: Command[], argv: string[]): { cmd: Command; rest: string[] } | null {
  let best: { cmd: Command; rest: string[] } | null = null;
  for (const cmd of commands) {
    if (cmd.path.every((w, i) => argv[i] === w) && (!best || cmd.path.length > best.cmd.path.length)) {
      best = { cmd, rest: argv.slice(cmd.path.length) };
    }
  }
  return best;
}

function defaultHuman(result: unknown): string {
  if (Array.isArray(result)) {
    if (result.length === 0) return "(none)";
    return result.map((r) => defaultHuman(r)).join("\n\n");
  }
  if (result && typeof result === "object") {
    return Object.entries(result)
      .map(([k, v]) => `${k}: ${v !== null && typeof v === "object" ? JSON.stringify(v) : String(v)}`)
      .join("\n");
  }
  return String(result);
}

export interface RunOptions {
  env: Record<string, string | undefined>;
  clock: Clock;
  /** The box's own formats unless a test brings others. */
  recognise?: Recognise;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

/** Runs one command line; returns the exit code. */
export async function runCli(commands: Command[], argv: string[], ro: RunOptions): Promise<number> {
  const out = ro.out ?? ((t: string) => process.stdout.write(t.endsWith("\n") ? t : t + "\n"));
  const err = ro.err ?? ((t: string) => process.stderr.write(t.endsWith("\n") ? t : t + "\n"));
  if (argv.length === 0) {
    err("error: missing command; run 'cuadra --help' for the list");
    return 2;
  }
  if (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    out(overviewHelp(commands));
    return 0;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    const group = commands.filter((c) => c.path[0] === argv[0]);
    if (group.length > 0 && (argv[1] === "--help" || argv[1] === "-h")) {
      // `cuadra key --help`: the group's commands.
      out(overviewHelp(group).replace(/^Cuadra[^\n]*\n\n/, ""));
      return 0;
    }
    const hint = group.length > 0 ? `; try: ${group.map((c) => c.path.join(" ")).join(", ")}` : "; run 'cuadra --help' for the list";
    err(`error: unknown command '${argv.slice(0, 2).join(" ")}'${hint}`);
    return 2;
  }
  const { cmd, rest } = found;
  const specs = { ...(cmd.options ?? {}), ...GLOBAL_OPTIONS };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(Object.entries(specs).map(([n, o]) => [n, { type: o.type }])),
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
    positionals = parsed.positionals;
  } catch (e) {
    err(`error: ${(e as Error).message.split("\n")[0]}; see 'cuadra ${cmd.path.join(" ")} --help'`);
    return 2;
  }
  if (values.help) {
    out(commandHelp(cmd));
    return 0;
  }
  const expected = cmd.args ?? [];
  const required = expected.filter((a) => !a.startsWith("[")).length; // "[SESSION_ID]" is optional
  if (positionals.length < required || positionals.length > expected.length) {
    err(`error: expected ${expected.length ? expected.join(" ") : "no arguments"}; see 'cuadra ${cmd.path.join(" ")} --help'`);
    return 2;
  }
  for (const [n, o] of Object.entries(cmd.options ?? {})) {
    if (o.required && (values[n] === undefined || values[n] === "")) {
      err(`error: --${n} is required; see 'cuadra ${cmd.path.join(" ")} --help'`);
      return 2;
    }
  }
  const dataDir = (values["data-dir"] as string | undefined) ?? ro.env.CUADRA_DATA_DIR ?? "./cuadra-data";
  let store: Store | undefined;
  const ctx: CommandContext = {
    dataDir,
    json: values.json === true,
    clock: ro.clock,
    recognise: ro.recognise ?? recognise,
    store: () => (store ??= openStore(dataDir)),
    out,
    err,
  };
  try {
    const result = await cmd.run(ctx, values, positionals);
    if (result !== undefined) {
      out(ctx.json ? JSON.stringify(result) : cmd.human ? await cmd.human(result, ctx) : defaultHuman(result));
    }
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}; see 'cuadra ${cmd.path.join(" ")} --help'`);
      return 2;
    }
    err(`error: ${oneLine(e)}`);
    return 1;
  } finally {
    store?.close();
  }
}

function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s+/g, " ").trim();
}

// ---- option readers shared by commands

export function requireString(opts: Record<string, unknown>, name: string): string {
  const v = opts[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required`);
  return v;
}

export function readEnvironment(opts: Record<string, unknown>): "live" | "test" {
  const v = requireString(opts, "env");
  if (v !== "live" && v !== "test") throw new UsageError(`--env must be live or test, not '${v}'`);
  return v;
}

export function readInt(opts: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !/^-?\d+$/.test(v) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
}
