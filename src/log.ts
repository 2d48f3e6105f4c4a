// One JSON line per request on stdout (contract §13). Only fields named here are ever logged:
// no headers, no bodies, so no secret, key, signature or activation code can slip in.
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

export function jsonLogger(write: (line: string) => void = (l) => process.stdout.write(l + "\n")): Logger {
  return {
    request: (line) => write(JSON.stringify(line)),
    event: (level, msg, fields = {}) => write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })),
  };
}

export const silentLogger: Logger = { request: () => {}, event: () => {} };
