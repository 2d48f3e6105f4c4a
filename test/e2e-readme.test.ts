// Every shell example of README.md, run as printed against a box started as README says (issue 15:
// "README examples all work as printed against the default box").
//
// The runner's rules:
// - Each ```sh block of README.md is one test, in README's order, named after the heading it is under.
//   A block right below a line `<!-- readme-test: skip (why) -->` is not run; it is listed as skipped
//   with its reason. A skip without a reason (that block is not run either), or such a line that is
//   not right above a ```sh block, fails the first test.
// - The box is dist/cuadra (`bun run build`) started as "Start it" says: `cuadra serve --name "My shop"`
//   in an empty working folder, so HTTPS with its own self-signed certificate (--tls auto), data in
//   ./cuadra-data, the shop created by that first start. Three additions: `--port` with a free port
//   instead of 8443 (8443 may be taken on a CI machine), `--host 127.0.0.1` (not every address of the
//   machine) and `--no-mdns` (no announcement on the CI machine's network).
// - The one rewrite of a block's text: `:8443` becomes `:<that port>`. Nothing else is changed.
// - The blocks run in that working folder, one after another, in ONE shell session (`/bin/sh -eu`,
//   dash on Debian: README's examples are POSIX sh), as a reader pastes them into one terminal in the
//   folder where `serve` runs: what a block sets, the later ones see. No CUADRA_DATA_DIR (nor any other
//   CUADRA* or NODE_ENV variable) is set: `cuadra` commands find the box's data as ./cuadra-data,
//   as README says they do. Each block is sent as `{`, the block, `} </dev/null`, so that no command
//   in it can read the session's own input.
// - PATH is one folder: `cuadra`, a link to dist/cuadra (README: "type export PATH=\"$PWD/dist:$PATH\""),
//   and links to the basic tools every Debian has (the usual coreutils, grep, sed, awk) plus curl and
//   openssl, which README asks for. A block that needs jq, python or bash fails ("not found").
// - A block that starts with `#!` is a script that README says to save and run: it is saved to a
//   file and run from the session with its `#!` interpreter (so it sees exported variables only).
// - curl is the system's, with one setting from the runner's own .curlrc (CURL_HOME): `fail-with-body`.
//   An HTTP error answer (4xx/5xx) then fails the block; without it curl exits 0 and the reader would
//   see a problem+json where README promises something else. It adds no -k.
// - A block fails on a non-zero exit status (set -e), an unset variable (set -u), or when it has not
//   finished after 30 s. The failure shows the block as run, its stdout, stderr and exit status, and the
//   end of the box's output. A failed block ends the session: the later blocks fail, naming it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ROOT, buildBinary, freePort, tempDirsRemovedAfterAll } from "./support/e2e";

setDefaultTimeout(60_000);

// ---- README's blocks

interface Block {
  /** 1-based, in README's order. */
  n: number;
  heading: string;
  /** The first line of the fence, for messages. */
  line: number;
  text: string;
  skip?: string;
}

const MARKER = /^<!--\s*readme-test:(.*?)-->\s*$/;

/** The ```sh blocks of a Markdown text, with their headings and skip markers; `problems` lists bad markers. */
function shBlocks(markdown: string): { blocks: Block[]; problems: string[] } {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  const problems: string[] = [];
  let heading = "(top)";
  let fence: { lang: string; start: number; body: string[] } | undefined;
  lines.forEach((line, i) => {
    if (fence) {
      if (/^```\s*$/.test(line)) {
        if (fence.lang === "sh") {
          const marker = MARKER.exec(lines[fence.start - 1] ?? "");
          const block: Block = { n: blocks.length + 1, heading, line: fence.start + 1, text: fence.body.join("\n") + "\n" };
          if (marker) {
            const skip = /^\s*skip\s*\((.*)\)\s*$/.exec(marker[1]!);
            if (skip && skip[1]!.trim() !== "") block.skip = skip[1]!.trim();
            else {
              // Meant to be skipped, so never run; the first test fails on it.
              block.skip = "a readme-test marker without a reason";
              problems.push(`README.md:${fence.start}: "${lines[fence.start - 1]}" must read <!-- readme-test: skip (the reason) -->`);
            }
          }
          blocks.push(block);
        }
        fence = undefined;
      } else fence.body.push(line);
      return;
    }
    const open = /^```(\S*)/.exec(line);
    if (open) {
      fence = { lang: open[1]!, start: i, body: [] };
      return;
    }
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    if (h) heading = h[1]!.trim();
    if (MARKER.test(line) && !/^```sh\s*$/.test(lines[i + 1] ?? "")) {
      problems.push(`README.md:${i + 1}: a readme-test marker must be right above a \`\`\`sh block`);
    }
  });
  return { blocks, problems };
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const { blocks, problems } = shBlocks(README);

// ---- the tools a block may use

/** What README's examples use; without one of them the file is skipped (as e2e-device skips its script test). */
const NEEDED = ["sh", "curl", "openssl", "sha256sum", "grep", "sed", "cut", "od", "base64", "tr", "date", "head"];
/** The rest of a fresh Debian's basic tools, linked when present. */
const ALSO = ["cat", "tail", "wc", "sort", "uniq", "tee", "env", "ls", "mkdir", "rm", "cp", "mv", "sleep", "printf", "echo", "test", "true", "false", "basename", "dirname", "awk", "xargs", "dd", "mktemp", "chmod", "touch", "id", "uname", "hostname"];
const missing = NEEDED.filter((t) => Bun.which(t) === null);
if (missing.length > 0) console.warn(`README examples not run: this machine lacks ${missing.join(", ")}`);

// ---- the session

const temp = tempDirsRemovedAfterAll();
let work: string;
let scratch: string;
let env: Record<string, string>;
let port: number;
let box: { proc: ReturnType<typeof Bun.spawn>; out: () => string } | undefined;
let session: Session | undefined;
/** The block that ended the session, if one did. */
let broken: { block: Block; why: string } | undefined;

/** One `sh -eu` reading commands from a pipe, as a terminal would from its reader. */
class Session {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  out = "";
  err = "";
  code: number | undefined;

  constructor(cwd: string, env: Record<string, string>) {
    this.proc = Bun.spawn(["/bin/sh", "-eu"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const pump = async (stream: ReadableStream<Uint8Array>, add: (s: string) => void) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
    };
    void pump(this.proc.stdout, (s) => (this.out += s));
    void pump(this.proc.stderr, (s) => (this.err += s));
    void this.proc.exited.then((c) => (this.code = c));
  }

  /** Runs `command` (shell text) in the session; resolves when its end mark appears on both streams, or the shell ends. */
  async run(command: string, timeoutMs = 30_000): Promise<{ stdout: string; stderr: string; code: number | "timeout" }> {
    const from = { out: this.out.length, err: this.err.length };
    const mark = `readme-test-done-${crypto.randomUUID()}`;
    this.proc.stdin.write(`${command}\nprintf '\\n%s\\n' '${mark}'\nprintf '\\n%s\\n' '${mark}' >&2\n`);
    this.proc.stdin.flush();
    const end = `\n${mark}\n`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const o = this.out.indexOf(end, from.out);
      const e = this.err.indexOf(end, from.err);
      if (o >= 0 && e >= 0) return { stdout: this.out.slice(from.out, o), stderr: this.err.slice(from.err, e), code: 0 };
      if (this.code !== undefined) {
        await Bun.sleep(50); // the last of its output
        return { stdout: this.out.slice(from.out), stderr: this.err.slice(from.err), code: this.code };
      }
      if (Date.now() > deadline) {
        this.proc.kill("SIGKILL");
        return { stdout: this.out.slice(from.out), stderr: this.err.slice(from.err), code: "timeout" };
      }
      await Bun.sleep(10);
    }
  }

  async close(): Promise<void> {
    if (this.code === undefined) {
      this.proc.stdin.end();
      const done = await Promise.race([this.proc.exited, Bun.sleep(5_000).then(() => "late" as const)]);
      if (done === "late") this.proc.kill("SIGKILL");
    }
  }
}

const asRun = (b: Block) => b.text.replaceAll(":8443", `:${port}`);

/** What the session is given for a block: the block itself, or for a `#!` script the command that runs its saved file. */
function commandFor(b: Block): string {
  const text = asRun(b);
  if (!text.startsWith("#!")) return `{\n${text}} </dev/null`;
  const file = join(scratch, `readme-block-${b.n}.sh`);
  writeFileSync(file, text, { mode: 0o700 });
  const interpreter = text.slice(2, text.indexOf("\n")).trim();
  return `{ ${interpreter} '${file}'; } </dev/null`;
}

const indent = (s: string) => (s === "" ? "  (nothing)" : s.replace(/\n$/, "").replace(/^/gm, "  "));

beforeAll(async () => {
  if (missing.length > 0) return;
  await buildBinary();
  work = temp.mkdtemp(join(tmpdir(), "cuadra-readme-"));
  scratch = temp.mkdtemp(join(tmpdir(), "cuadra-readme-scratch-"));
  const bin = join(scratch, "bin");
  mkdirSync(bin);
  symlinkSync(BINARY, join(bin, "cuadra"));
  for (const tool of [...NEEDED, ...ALSO]) {
    const at = Bun.which(tool);
    if (at) symlinkSync(at, join(bin, tool));
  }
  const curlHome = join(scratch, "curl");
  mkdirSync(curlHome);
  writeFileSync(join(curlHome, ".curlrc"), "fail-with-body\n");
  env = { PATH: bin, CURL_HOME: curlHome };
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === "PATH" || k === "NODE_ENV" || k.startsWith("CUADRA") || k.startsWith("CURL")) continue;
    env[k] ??= v;
  }

  // "Start it": `cuadra serve --name "My shop"` in the folder, on a free port of 127.0.0.1, no mDNS.
  port = await freePort();
  const proc = Bun.spawn([join(bin, "cuadra"), "serve", "--name", "My shop", "--port", String(port), "--host", "127.0.0.1", "--no-mdns"], {
    cwd: work,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
    })();
  }
  box = { proc, out: () => out };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null) throw new Error(`cuadra serve exited with ${proc.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`cuadra serve did not answer /healthz within 20 s:\n${out}`);
    await Bun.sleep(50);
  }
  session = new Session(work, env);
}, 180_000);

afterAll(async () => {
  await session?.close();
  if (box) {
    box.proc.kill("SIGTERM");
    await box.proc.exited;
  }
});

describe.if(missing.length === 0)("README's shell examples, as printed, against a default box", () => {
  test("every ```sh block is found; every skipped one says why", () => {
    expect(problems).toEqual([]);
    expect(blocks.length).toBeGreaterThan(10);
    const skipped = blocks.filter((b) => b.skip);
    console.log(`README: ${blocks.length} sh blocks, ${skipped.length} not run:\n${skipped.map((b) => `  #${b.n} (${b.heading}, line ${b.line}): ${b.skip}`).join("\n")}`);
    // Skips are for what cannot run here (installing, the server itself, the test suite); keep them few.
    expect(skipped.length).toBeLessThanOrEqual(4);
  });

  for (const b of blocks) {
    const name = `#${b.n} ${b.heading}: ${b.text.split("\n")[0]!.slice(0, 60)}`;
    if (b.skip) {
      test.skip(`${name} (not run: ${b.skip})`, () => {});
      continue;
    }
    test(name, async () => {
      if (broken) throw new Error(`not run: block #${broken.block.n} (${broken.block.heading}, README.md:${broken.block.line}) ended the session (${broken.why})`);
      const r = await session!.run(commandFor(b));
      if (r.code === 0) return;
      const why = r.code === "timeout" ? "not finished after 30 s" : `exit status ${r.code}`;
      broken = { block: b, why };
      const boxTail = box!.out().split("\n").slice(-15).join("\n");
      throw new Error(
        [
          `README.md:${b.line} (${b.heading}) fails as printed: ${why}`,
          "block, as run:",
          indent(asRun(b)),
          "stdout:",
          indent(r.stdout),
          "stderr:",
          indent(r.stderr),
          "the box's last output:",
          indent(boxTail),
        ].join("\n"),
      );
    });
  }
});
