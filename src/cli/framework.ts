// A small command-line framework: one spec per command, shared options, --help, --json, and the
// exit codes of contract §1 (0 ok, 2 usage error, 1 any other failure; errors are one stderr line).
// Every message a person reads comes from the catalogue of their language (src/i18n: Spanish when
// the system's locale is Spanish, English otherwise); --json documents never change with it.
import { resolve } from "node:path";
import type { Clock } from "../clock";
import { parseDuration } from "../i18n/format";
import { translator, type Lang, type MessageKey, type Translate } from "../i18n";
import { recognise, type Recognise } from "../notifications/recogniser";
import type { Store } from "../store/db";
import { closestWord } from "./did-you-mean";
import { explainFailure, openDataDir } from "./data-dir";

type Values = Record<string, string | number>;
const english = translator("en");

/** Wrong use of the command line (exit 2): a catalogue key, so it is printed in the reader's language. */
export class UsageError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly values: Values = {},
  ) {
    super(english(key, values));
  }
}

/** A failure a person can act on (exit 1), in the reader's language. */
export class CliError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly values: Values = {},
  ) {
    super(english(key, values));
  }
}

export interface OptionSpec {
  type: "string" | "boolean";
  /** Help text: a catalogue key. */
  description: MessageKey;
  /** Shown in help as the value's name, e.g. "NAME". */
  value?: string;
  required?: boolean;
}

export interface CommandContext {
  /** As given (--data-dir, CUADRA_DATA_DIR or ./cuadra-data). */
  dataDir: string;
  json: boolean;
  clock: Clock;
  lang: Lang;
  t: Translate;
  /** The words the command was run with (for "run this instead" hints). */
  argv: string[];
  /** The wallet formats this box reads (contract §16). */
  recognise: Recognise;
  /** The data dir's database, opened on first use. Only commands marked `createsDataDir` may create it. */
  store(): Store;
  out(text: string): void;
  err(text: string): void;
}

export interface Command {
  /** Words after the program name, e.g. ["key", "create"]. */
  path: string[];
  /** A catalogue key. */
  summary: MessageKey;
  /** Positional arguments, e.g. ["KEY_ID"]; an optional one in brackets, e.g. ["[SESSION_ID]"]. */
  args?: string[];
  options?: Record<string, OptionSpec>;
  /** init, serve, tenant create and restore make the data dir; every other command needs one. */
  createsDataDir?: boolean;
  /** Long-running commands (serve) print for themselves. */
  run(ctx: CommandContext, opts: Record<string, string | boolean | undefined>, args: string[]): Promise<unknown> | unknown;
  /** Human output; the default prints key: value lines. */
  human?(result: any, ctx: CommandContext): string | Promise<string>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  "data-dir": { type: "string", value: "DIR", description: "cli.opt.data_dir" },
  json: { type: "boolean", description: "cli.opt.json" },
  help: { type: "boolean", description: "cli.opt.help" },
};

const flagOf = (n: string, o: OptionSpec) => (o.type === "string" ? `--${n} ${o.value ?? "VALUE"}` : `--${n}`);

export function commandHelp(cmd: Command, t: Translate = english, program = "cuadra"): string {
  const opts = { ...(cmd.options ?? {}), ...GLOBAL_OPTIONS };
  const usage = [
    program,
    ...cmd.path,
    ...(cmd.args ?? []),
    ...Object.entries(cmd.options ?? {}).map(([n, o]) => (o.required ? flagOf(n, o) : `[${flagOf(n, o)}]`)),
  ].join(" ");
  const lines = Object.entries(opts).map(([n, o]) => `  ${flagOf(n, o).padEnd(28)} ${t(o.description)}`);
  return `${t(cmd.summary)}\n\n${t("cli.help.usage")}: ${usage}\n\n${t("cli.help.options")}:\n${lines.join("\n")}\n`;
}

export function overviewHelp(commands: Command[], t: Translate = english, program = "cuadra"): string {
  const names = commands.map((c) => [...c.path, ...(c.args ?? [])].join(" "));
  const width = Math.max(...names.map((n) => n.length)) + 2;
  const rows = commands.map((c, i) => `  ${names[i]!.padEnd(width)}${t(c.summary)}`);
  return `${t("cli.help.title")}\n\n${t("cli.help.usage")}: ${program} ${t("cli.help.placeholder")}\n\n${t("cli.help.commands")}:\n${rows.join("\n")}\n\n${t("cli.help.more", { program })}\n`;
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

/** "did you mean" for a command line that names no command: the closest command by its words. */
function unknownCommand(commands: Command[], argv: string[]): UsageError {
  const words = argv.filter((a) => !a.startsWith("-"));
  if (words.length === 0) return new UsageError("cli.usage.unknown_command", { command: argv[0]! });
  const typed = words.slice(0, 2).join(" ");
  const paths = commands.map((c) => c.path.join(" "));
  const exists = (p: string) => paths.includes(p);
  // `devices list` ~ `device list`, `key creat` ~ `key create`, `versoin` ~ `version`.
  let guess = words.length >= 2 ? closestWord(typed, paths.filter((p) => p.includes(" "))) : null;
  guess ??= closestWord(words[0]!, paths.filter((p) => !p.includes(" ")));
  if (!guess) {
    // `tenants` ~ the group `tenant`; `tenants lst`, too.
    const groups = [...new Set(commands.filter((c) => c.path.length > 1).map((c) => c.path[0]!))];
    const group = closestWord(words[0]!, groups);
    if (group && group !== words[0]) guess = words[1] && exists(`${group} ${words[1]}`) ? `${group} ${words[1]}` : group;
  }
  if (guess) return new UsageError("cli.usage.unknown_command_guess", { command: typed, guess });
  const group = commands.filter((c) => c.path[0] === words[0] && c.path.length > 1).map((c) => c.path.join(" "));
  if (group.length > 0) return new UsageError("cli.usage.unknown_command_group", { command: typed, commands: group.join(", ") });
  return new UsageError("cli.usage.unknown_command", { command: typed });
}

/** Usage errors that carry their own suggestion need no pointer to --help. */
const SUGGESTS = new Set<MessageKey>(["cli.usage.unknown_command_guess", "cli.usage.unknown_option_guess", "cli.usage.unknown_command_group"]);

/**
 * `cuadra --data-dir /srv/x tenant list` and `cuadra --json tenant list`: the options every command
 * takes may come before the command's words; they are moved after them.
 */
function globalOptionsLast(argv: string[]): string[] {
  const front: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const word = argv[i]!;
    if (word === "--json") front.push(word), i++;
    else if (word.startsWith("--data-dir=")) front.push(word), i++;
    else if (word === "--data-dir" && i + 1 < argv.length) front.push(word, argv[i + 1]!), (i += 2);
    else break;
  }
  return front.length > 0 && i < argv.length ? [...argv.slice(i), ...front] : argv;
}

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Our own parser (node's parseArgs answered in its own words, e.g. about a positional starting
 * with '-'): `--name value`, `--name=value`, `--flag`, `-h`, and `--` before arguments that start
 * with '-'. A string option takes the next word as its value unless that word is one of our options.
 */
function parseOptions(rest: string[], specs: Record<string, OptionSpec>): Parsed {
  const values: Parsed["values"] = {};
  const positionals: string[] = [];
  const names = Object.keys(specs);
  const unknown = (given: string) => {
    const guess = closestWord(given.replace(/^-+/, "").split("=")[0]!, names);
    return guess
      ? new UsageError("cli.usage.unknown_option_guess", { option: given.split("=")[0]!, guess: `--${guess}` })
      : new UsageError("cli.usage.unknown_option", { option: given.split("=")[0]! });
  };
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === "--") {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (word === "-h") {
      values.help = true;
      continue;
    }
    if (!word.startsWith("-") || word === "-") {
      positionals.push(word);
      continue;
    }
    if (!word.startsWith("--")) throw unknown(word); // `-port`, `-v`: single dash
    const eq = word.indexOf("=");
    const name = word.slice(2, eq === -1 ? undefined : eq);
    const spec = specs[name];
    if (!spec) throw unknown(word);
    if (spec.type === "boolean") {
      if (eq !== -1) throw new UsageError("cli.usage.no_value", { option: `--${name}` });
      values[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = word.slice(eq + 1);
    else {
      const next = rest[i + 1];
      if (next !== undefined && !(next.startsWith("--") && next.slice(2).split("=")[0]! in specs)) {
        value = next;
        i++;
      }
    }
    if (value === undefined) throw new UsageError("cli.usage.needs_value", { option: `--${name}`, value: spec.value ?? "VALUE" });
    values[name] = value;
  }
  return { values, positionals };
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

/** Spanish when the system's locale is Spanish (LC_ALL, LC_MESSAGES, LANG, as gettext reads them). */
export function cliLang(env: Record<string, string | undefined>): Lang {
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || "";
  return /^es([_.@-]|$)/i.test(locale) ? "es" : "en";
}

/** Runs one command line; returns the exit code. */
export async function runCli(commands: Command[], argv: string[], ro: RunOptions): Promise<number> {
  const out = ro.out ?? ((t: string) => process.stdout.write(t.endsWith("\n") ? t : t + "\n"));
  const err = ro.err ?? ((t: string) => process.stderr.write(t.endsWith("\n") ? t : t + "\n"));
  const lang = cliLang(ro.env);
  const t = translator(lang);
  const usage = (e: UsageError, cmd?: Command) => {
    const see = cmd ? t("cli.usage.see", { command: `cuadra ${cmd.path.join(" ")} --help` }) : t("cli.usage.see_all");
    err(`${t("cli.error")}: ${t(e.key, e.values)}${SUGGESTS.has(e.key) ? "" : `; ${see}`}`);
    return 2;
  };
  if (argv.length === 0) return usage(new UsageError("cli.usage.no_command"));
  if (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    const topic = argv[0] === "help" ? findCommand(commands, argv.slice(1)) : null;
    out(topic ? commandHelp(topic.cmd, t) : overviewHelp(commands, t));
    return 0;
  }
  if (argv[0] === "--version" || argv[0] === "-V" || argv[0] === "-v") argv = ["version", ...argv.slice(1)];
  argv = globalOptionsLast(argv);
  const found = findCommand(commands, argv);
  if (!found) {
    const group = commands.filter((c) => c.path[0] === argv[0]);
    if (group.length > 0 && (argv[1] === "--help" || argv[1] === "-h")) {
      // `cuadra key --help`: the group's commands.
      out(overviewHelp(group, t).split("\n").slice(2).join("\n"));
      return 0;
    }
    return usage(unknownCommand(commands, argv));
  }
  const { cmd, rest } = found;
  const specs = { ...(cmd.options ?? {}), ...GLOBAL_OPTIONS };
  let parsed: Parsed;
  try {
    parsed = parseOptions(rest, specs);
  } catch (e) {
    return usage(e as UsageError, cmd);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(commandHelp(cmd, t));
    return 0;
  }
  const expected = cmd.args ?? [];
  const required = expected.filter((a) => !a.startsWith("[")).length; // "[SESSION_ID]" is optional
  if (positionals.length < required) return usage(new UsageError("cli.usage.missing_argument", { argument: expected[positionals.length]! }), cmd);
  if (positionals.length > expected.length) {
    const extra = positionals[expected.length]!;
    const key = expected.length === 0 ? "cli.usage.no_arguments" : extra.startsWith("-") ? "cli.usage.extra_dash_argument" : "cli.usage.extra_argument";
    return usage(new UsageError(key, { argument: extra }), cmd);
  }
  for (const [n, o] of Object.entries(cmd.options ?? {})) {
    if (o.required && (values[n] === undefined || (values[n] as string).trim() === "")) return usage(new UsageError("cli.usage.required", { option: `--${n}` }), cmd);
  }
  // An empty value (CUADRA_DATA_DIR= in a service file) is no value, not "the current folder".
  const dataDir = (values["data-dir"] as string | undefined) || ro.env.CUADRA_DATA_DIR || "./cuadra-data";
  let store: Store | undefined;
  const ctx: CommandContext = {
    dataDir,
    json: values.json === true,
    clock: ro.clock,
    lang,
    t,
    argv,
    recognise: ro.recognise ?? recognise,
    store: () => (store ??= openDataDir(dataDir, cmd.createsDataDir === true)),
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
    if (e instanceof UsageError) return usage(e, cmd);
    err(`${t("cli.error")}: ${oneLine(explainFailure(e, ctx))}`);
    return 1;
  } finally {
    store?.close();
  }
}

function oneLine(msg: string): string {
  return msg.replace(/\s+/g, " ").trim();
}

/** The absolute data dir, as error messages name it. */
export const dataDirPath = (ctx: CommandContext) => resolve(ctx.dataDir);

// ---- option readers shared by commands

export function requireString(opts: Record<string, unknown>, name: string): string {
  const v = opts[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError("cli.usage.required", { option: `--${name}` });
  return v;
}

/** One of `choices`, in any case (`--env LIVE`); undefined when the option was not given. */
export function readChoice<C extends string>(opts: Record<string, unknown>, name: string, choices: readonly C[]): C | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  const lower = String(v).trim().toLowerCase();
  const hit = choices.find((c) => c === lower);
  if (!hit) throw new UsageError("cli.usage.choice", { option: `--${name}`, choices: choices.join("|"), value: String(v) });
  return hit;
}

export const ENVIRONMENTS = ["live", "test"] as const;

export function readEnvironment(opts: Record<string, unknown>, fallback?: "live" | "test"): "live" | "test" {
  const env = readChoice(opts, "env", ENVIRONMENTS) ?? fallback;
  if (!env) throw new UsageError("cli.usage.required", { option: "--env" });
  return env;
}

export function readInt(opts: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !/^-?\d+$/.test(v) || n < min || n > max) {
    throw new UsageError("cli.usage.whole_number", { option: `--${name}`, min, max });
  }
  return n;
}

/** A length of time: `900` (seconds), `15m`, `2h`, `3d`; undefined when not given. */
export function readDuration(opts: Record<string, unknown>, name: string, maxSeconds: number): number | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  const seconds = parseDuration(String(v));
  if (seconds === null || seconds < 1 || seconds > maxSeconds) {
    throw new UsageError("cli.usage.duration", { option: `--${name}`, min: "1s", max: shortDuration(maxSeconds), value: String(v) });
  }
  return seconds;
}
const shortDuration = (s: number) => (s % 86_400 === 0 ? `${s / 86_400}d` : s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`);
