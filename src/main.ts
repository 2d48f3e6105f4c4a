#!/usr/bin/env bun
// Entry point of the `cuadra` executable and of `bun run src/main.ts <command>`.
import { systemClock } from "./clock";
import { commands } from "./cli/commands";
import { runCli } from "./cli/framework";

const code = await runCli(commands, process.argv.slice(2), { env: process.env, clock: systemClock });
process.exit(code);
