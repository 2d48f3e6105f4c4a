// Runs one command line in-process (the same runCli the executable runs) on a data dir, with the
// test's clock: exit code, stdout, stderr and stdout as JSON when it is JSON.
import { commands } from "../../src/cli/commands";
import { runCli } from "../../src/cli/framework";
import type { Clock } from "../../src/clock";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  errLines: number;
  json: any;
}

export async function runCuadra(dataDir: string, argv: string[], o: { clock: Clock; env?: Record<string, string> }): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(commands, [...argv, "--data-dir", dataDir], { env: o.env ?? {}, clock: o.clock, out: (t) => out.push(t), err: (t) => err.push(t) });
  const stdout = out.join("\n");
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr: err.join("\n"), errLines: err.length, json };
}
