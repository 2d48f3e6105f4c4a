// The request log (contract §13): JSON lines, written once per turn of the event loop.
import { describe, expect, test } from "bun:test";
import { bufferedStdout, jsonLogger } from "../src/log";

describe("bufferedStdout", () => {
  test("lines of one turn go out in one write, in order, each ending in a newline; the next turn writes again", async () => {
    const writes: string[] = [];
    const line = bufferedStdout((text) => writes.push(text));
    line("a");
    line("b");
    line("c");
    expect(writes).toEqual([]); // nothing yet: written after this turn
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(["a\nb\nc\n"]);
    line("d");
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(["a\nb\nc\n", "d\n"]);
    await new Promise((r) => setImmediate(r));
    expect(writes).toHaveLength(2); // an idle turn writes nothing
  });

  test("each line is one JSON document", async () => {
    const writes: string[] = [];
    const log = jsonLogger(bufferedStdout((text) => writes.push(text)));
    log.event("info", "listening", { url: "http://127.0.0.1:8443" });
    log.request({ time: "t", level: "info", msg: "request", method: "GET", path: "/healthz", status: 200, duration_ms: 0.1, request_id: "req_1" });
    await new Promise((r) => setImmediate(r));
    const lines = writes.join("").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["listening", "request"]);
  });
});

test("an operational message goes out at once, after the request lines before it", () => {
  const writes: string[] = [];
  const log = jsonLogger(bufferedStdout((text) => writes.push(text)));
  log.request({ time: "t", level: "info", msg: "request", method: "GET", path: "/healthz", status: 200, duration_ms: 0.1, request_id: "req_1" });
  log.event("info", "stopping");
  expect(writes.join("").trimEnd().split("\n").map((l) => JSON.parse(l).msg)).toEqual(["request", "stopping"]);
});
