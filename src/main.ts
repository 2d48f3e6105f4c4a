#!/usr/bin/env bun
// Entry point of the `cuadra` executable and of `bun run src/main.ts <command>`.
import { systemClock } from "./clock";
import { commands } from "./cli/commands";
import { runCli } from "./cli/framework";

// No top-level await: the binary is built with --bytecode, which needs none.
void runCli(commands, process.argv.slice(2), { env: process.env, clock: systemClock }).then((code) => {
  // Exit by letting the event loop end, not with process.exit(): that cut piped output at 64 KiB
  // (`cuadra tenant list --json | jq` got a truncated document). The unref'd timer only fires if
  // something unexpected keeps the process alive.
  process.exitCode = code;
  setTimeout(() => process.exit(code), 10_000).unref();
});
