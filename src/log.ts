// One JSON line per request on stdout (contract §13). Only fields named here are ever logged:
// no headers, no bodies, so no secret, key, signature or activation code can slip in.
import { writeSync } from "node:fs";
export interface RequestLogLine {
  time: string;
  level: "info" | "error";
  msg: "request";
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  tenant_id?: string;
  environment?: string;
  device_id?: string;
}

export interface Logger {
  request(line: RequestLogLine): void;
  /** Operational messages (start, stop, unexpected errors): never with request data. */
  event(level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Lines to stdout, written once per turn of the event loop rather than one write(2) per request:
 * under load, one turn answers many requests. What is buffered is written at exit too.
 */
export type LineWriter = ((line: string) => void) & {
  /** Writes what is buffered now, e.g. before an operational message that must not wait. */
  flush?: () => void;
};

export function bufferedStdout(out: (text: string) => void = (text) => process.stdout.write(text)): LineWriter {
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const text = pending;
    pending = "";
    out(text);
  };
  // At exit there is no next turn: what is left goes out at once.
  process.on("exit", () => {
    if (pending !== "") writeSync(1, pending);
    pending = "";
  });
  const write: LineWriter = (line) => {
    pending += line + "\n";
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  write.flush = flush;
  return write;
}

/** Request lines are buffered for the turn; operational messages (listening, stopping, errors) go out at once. */
export function jsonLogger(write: LineWriter = bufferedStdout()): Logger {
  return {
    request: (line) => write(JSON.stringify(line)),
    event: (level, msg, fields = {}) => {
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
      write.flush?.();
    },
  };
}

export const silentLogger: Logger = { request: () => {}, event: () => {} };
