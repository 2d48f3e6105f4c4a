// A webhook receiver on a free loopback port, as a shop's software would run one: it records every
// request and answers what the test says (by default 204).
import { setSystemTime } from "bun:test";
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  userAgent: string | null;
  contentType: string | null;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next request gets; a Promise delays the answer (a hanging receiver). */
  answer: (r: Received) => Response | Promise<Response>;
  /** Resolves once `n` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  stop(): void;
}

export function startReceiver(path = "/hooks"): Receiver {
  const received: Received[] = [];
  const rx: Receiver = {
    url: "",
    received,
    answer: () => new Response(null, { status: 204 }),
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`);
        await Bun.sleep(10);
      }
      return received.slice(0, n);
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const r: Received = {
        id: req.headers.get("webhook-id") ?? "",
        timestamp: req.headers.get("webhook-timestamp") ?? "",
        signature: req.headers.get("webhook-signature") ?? "",
        userAgent: req.headers.get("user-agent"),
        contentType: req.headers.get("content-type"),
        body: await req.text(),
        at: Date.now(),
      };
      received.push(r);
      return await rx.answer(r);
    },
  });
  rx.url = `http://127.0.0.1:${server.port}${path}`;
  return rx;
}

/**
 * Verifies with the published Standard Webhooks library (not our code); returns the parsed body.
 * `atClock`: the library refuses timestamps 5 minutes from its clock, and in-process tests run on
 * an injected clock, so the library's clock is set to the message's own time while it checks.
 */
export function verifyWith(secret: string, r: Received, atClock = false): any {
  const verify = () => new Webhook(secret).verify(r.body, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature });
  if (!atClock) return verify();
  setSystemTime(new Date(Number(r.timestamp) * 1000));
  try {
    return verify();
  } finally {
    setSystemTime();
  }
}
