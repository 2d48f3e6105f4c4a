// Sends queued webhook messages (contract §15), in `serve`. It reads due messages from the reader,
// POSTs them with fetch, and records each attempt through the writer: no attempt holds a database
// lock, and a slow or dead receiver only occupies its own delivery slots, never the HTTP thread's
// answers to phones and shops. A crash between an attempt and its record sends the message again
// after the restart: delivery is at least once.
import type { Clock } from "../clock";
import type { Logger } from "../log";
import type { Store } from "../store/db";
import type { SecretBox } from "../store/secret-box";
import type { Writer } from "../store/writer";
import { VERSION } from "../version";
import { dueMessages, PRUNE_BATCH, type AttemptReport, type DueMessage } from "./endpoints.service";
import { DELIVERY_TIMEOUT_MS, parseRetryAfter, type AttemptResult } from "./schedule";
import { signatureHeader } from "./signature";

export interface DeliveryOptions {
  /** Attempts in flight at once, over all endpoints. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint: a hanging receiver holds only these. */
  perEndpoint?: number;
  /** How often to look for due messages when nothing is happening, ms. */
  pollMs?: number;
  /** How often to remove messages past their 30 days, ms. */
  pruneEveryMs?: number;
  /** [0, 1): the jitter of retry delays. */
  random?: () => number;
  /** A receiver's time to answer, ms. */
  timeoutMs?: number;
}

export interface WebhookDelivery {
  /** Looks for due messages now (after a write that queued one). */
  kick(): void;
  /** Stops looking; waits for the attempts in flight to be recorded. */
  stop(): Promise<void>;
  /** Attempts in flight (tests and the bench). */
  inFlight(): number;
}

interface Deps {
  reader: Store;
  writer: Writer;
  clock: Clock;
  logger: Logger;
  secretBox: SecretBox;
}

/** Sends one attempt and says what came back. Never throws. */
export async function attempt(m: DueMessage, secrets: string[], now: number, timeoutMs: number): Promise<AttemptResult> {
  const timestamp = Math.floor(now / 1000);
  try {
    const res = await fetch(m.url, {
      method: "POST",
      body: m.body,
      redirect: "manual", // contract §15: a 3xx is a failure
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": `Cuadra/${VERSION}`,
        "webhook-id": m.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, m.id, timestamp, m.body),
      },
    });
    // The answer's body is not read: only its status counts.
    await res.body?.cancel().catch(() => {});
    return { kind: "answered", status: res.status, retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), now) };
  } catch (e) {
    const name = (e as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") return { kind: "error", error: `timeout after ${Math.round(timeoutMs / 1000)} s` };
    return { kind: "error", error: (e as Error)?.message ?? String(e) };
  }
}

export function startDelivery(deps: Deps, opts: DeliveryOptions = {}): WebhookDelivery {
  const concurrency = opts.concurrency ?? 16;
  const perEndpoint = opts.perEndpoint ?? 4;
  const pollMs = opts.pollMs ?? 250;
  const pruneEveryMs = opts.pruneEveryMs ?? 3_600_000;
  const random = opts.random ?? Math.random;
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;

  /** Message id → its endpoint, for the attempts under way (at most `concurrency`). */
  const inFlight = new Map<string, string>();
  const busy = (endpointId: string) => [...inFlight.values()].filter((e) => e === endpointId).length;
  const running = new Set<Promise<void>>();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let looking = false;
  let again = false;
  let lastPrune = -Infinity;
  let failingLogged = false;

  // Opened secrets, by their sealed text (a rotation seals a new one): opening is an AES-GCM
  // decryption per attempt otherwise. Memory only, like every secret the box uses.
  const opened = new Map<string, Promise<string>>();
  const open = (sealed: string) => {
    let secret = opened.get(sealed);
    if (!secret) {
      if (opened.size > 256) opened.clear();
      opened.set(sealed, (secret = deps.secretBox.open(sealed)));
      secret.catch(() => opened.delete(sealed));
    }
    return secret;
  };
  const secretsOf = async (m: DueMessage, now: number): Promise<string[]> => {
    const secrets = [await open(m.secretEnc)];
    if (m.previousSecretEnc && m.previousSecretUntil !== null && m.previousSecretUntil > now) secrets.push(await open(m.previousSecretEnc));
    return secrets;
  };

  // Attempts that finish while a record is being written go together in the next write: one
  // writer round trip for many deliveries when receivers answer fast.
  let toRecord: { report: AttemptReport; done: (r: Awaited<ReturnType<typeof recordOne>>) => void; failed: (e: unknown) => void }[] = [];
  let recording = false;
  const flush = async () => {
    if (recording || toRecord.length === 0) return;
    recording = true;
    const batch = toRecord;
    toRecord = [];
    try {
      const results = await deps.writer.run("recordWebhookAttempts", { reports: batch.map((b) => b.report) });
      batch.forEach((b, i) => b.done(results[i] ?? null));
    } catch (e) {
      for (const b of batch) b.failed(e);
    } finally {
      recording = false;
      void flush();
    }
  };
  const recordOne = (report: AttemptReport) =>
    new Promise<{ status: string; disabled: string | null } | null>((done, failed) => {
      toRecord.push({ report, done, failed });
      void flush();
    });

  const send = async (m: DueMessage): Promise<void> => {
    try {
      const now = deps.clock.now();
      const result = await attempt(m, await secretsOf(m, now), now, timeoutMs);
      const recorded = await recordOne({ messageId: m.id, result, now: deps.clock.now(), random: random() });
      if (recorded?.disabled) deps.logger.event("warn", "webhook endpoint disabled", { endpoint_id: m.endpointId, reason: recorded.disabled });
      failingLogged = false;
    } catch (e) {
      // The attempt's record did not commit: the message stays due and is sent again.
      if (!failingLogged) deps.logger.event("error", "webhook delivery failed", { message_id: m.id, error: (e as Error)?.message ?? String(e) });
      failingLogged = true;
    } finally {
      inFlight.delete(m.id);
      look();
    }
  };

  const prune = async (now: number) => {
    if (now - lastPrune < pruneEveryMs) return;
    lastPrune = now;
    for (let n = PRUNE_BATCH; n === PRUNE_BATCH && !stopped; ) n = await deps.writer.run("pruneWebhooks", { now });
  };

  async function lookOnce(): Promise<void> {
    const now = deps.clock.now();
    await prune(now);
    if (inFlight.size >= concurrency) return;
    // Up to perEndpoint rows per endpoint: the ones in flight are among them (still pending and due).
    const due = dueMessages(deps.reader, now, (endpointId) => (busy(endpointId) >= perEndpoint ? 0 : perEndpoint)).filter(
      (m) => !inFlight.has(m.id),
    );
    for (const m of due) {
      if (inFlight.size >= concurrency) break;
      if (busy(m.endpointId) >= perEndpoint) continue;
      inFlight.set(m.id, m.endpointId);
      const p = send(m);
      running.add(p);
      void p.finally(() => running.delete(p));
    }
  }

  function look(): void {
    if (stopped) return;
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    if (timer) clearTimeout(timer);
    timer = null;
    lookOnce()
      .catch((e) => {
        if (!failingLogged) deps.logger.event("error", "webhook delivery failed", { error: (e as Error)?.message ?? String(e) });
        failingLogged = true;
      })
      .finally(() => {
        looking = false;
        if (stopped) return;
        if (again) {
          again = false;
          queueMicrotask(look);
        } else {
          timer = setTimeout(look, pollMs);
        }
      });
  }

  look();
  return {
    kick: look,
    inFlight: () => inFlight.size,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}
