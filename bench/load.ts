// The signed-event load of `bun run bench`: what the shop's phones send while wrk plays them. The
// same planned events are sent to every database (empty, orders, loaded):
// - about 20 % pay one of the seeded pending orders (its expected amount, a compatible payer name,
//   inside its window); against the empty database they find no order;
// - about 70 % are counter sales that no order is waiting for (most of what a shop's phones see);
// - about 10 % are a second phone's report of a payment another phone sent a moment earlier
//   (contract §6 duplicates).
// Event ids are random UUIDs, as phones send them. Times are offsets, fixed when the run is signed.
import { signRequest } from "../src/device/signing";
import * as d from "./data";

export interface PendingOrder {
  id: string;
  expected_amount: number;
  customer_name: string | null;
  security_code: string | null;
  created_at: number;
}

export interface PlannedEvent {
  eventId: string;
  device: number;
  source: string;
  amount: number;
  payer: string | null;
  code: string | null;
  reference: string | null;
  /** occurred_at = signing time − offset… */
  offsetMs: number;
  /** …but never before this (an order's creation): the payment of an order comes after it. */
  notBefore: number;
  kind: "order" | "counter" | "duplicate";
}

export function planLoad(n: number, devices: number, pending: readonly PendingOrder[]): PlannedEvent[] {
  const r = d.rng(0x10ad);
  const cat = d.catalogue(r, 2500);
  // Each order is paid at most once: walk a shuffled copy.
  const targets = [...pending];
  for (let i = targets.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [targets[i], targets[j]] = [targets[j]!, targets[i]!];
  }
  let nextTarget = 0;
  const out: PlannedEvent[] = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    const device = i % devices;
    if (x < 0.1 && i > 30) {
      const orig = out[i - d.int(r, 1, 30)]!;
      if (orig.kind !== "duplicate") {
        out.push({ ...orig, eventId: d.uuid(r), device: (orig.device + d.int(r, 1, devices - 1)) % devices, offsetMs: Math.max(0, orig.offsetMs + d.int(r, -3000, 3000)), kind: "duplicate" });
        continue;
      }
    }
    const source = d.source(r);
    const { securityCode, reference } = d.walletExtras(r, source);
    if (x < 0.3 && nextTarget < targets.length) {
      const o = targets[nextTarget++]!;
      out.push({
        eventId: d.uuid(r),
        device,
        source,
        amount: o.expected_amount,
        payer: d.payerNameAs(r, source, o.customer_name ?? d.fullName(r)),
        code: o.security_code ?? securityCode,
        reference,
        offsetMs: d.int(r, 1000, 10 * 60_000),
        notBefore: o.created_at,
        kind: "order",
      });
      continue;
    }
    out.push({
      eventId: d.uuid(r),
      device,
      source,
      amount: r() < 0.95 ? d.counterAmount(r) : d.orderAmount(r, cat),
      payer: r() < 0.97 ? d.payerNameAs(r, source, d.fullName(r)) : null,
      code: securityCode,
      reference,
      // Most arrive within seconds to minutes; a phone that was offline catches up with older ones.
      offsetMs: r() < 0.93 ? d.int(r, 500, 10 * 60_000) : d.int(r, 10 * 60_000, 12 * 3600_000),
      notBefore: 0,
      kind: "counter",
    });
  }
  return out;
}

export function eventBody(e: PlannedEvent, ts: number): string {
  const occurredAt = Math.max(ts - e.offsetMs, e.notBefore);
  return JSON.stringify({
    event_id: e.eventId,
    kind: "payment.received",
    occurred_at: occurredAt,
    source: e.source,
    amount: e.amount,
    currency: "PEN",
    ...(e.payer !== null ? { payer_name: e.payer } : {}),
    ...(e.code !== null ? { security_code: e.code } : {}),
    ...(e.reference !== null ? { reference: e.reference } : {}),
    raw: d.rawNotification(e.source, e.payer ?? "Alguien", e.amount, e.code),
  });
}

/** One line per event for the Lua script: device id, signature, event id, body (tab-separated; JSON escapes tabs). */
export function signLoad(events: readonly PlannedEvent[], devices: readonly { id: string; secret: string }[], ts: number): string {
  const lines: string[] = new Array(events.length);
  const tsText = String(ts);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const dev = devices[e.device]!;
    const body = eventBody(e, ts);
    lines[i] = `${dev.id}\t${signRequest(dev.secret, tsText, "POST", "/device/v1/events", body)}\t${e.eventId}\t${body}`;
  }
  return lines.join("\n") + "\n";
}

/**
 * wrk script: plays lines first..last of the file; thread k of T sends lines first+k−1,
 * first+k−1+T, … (each thread reads only its share and formats its requests once, before the clock
 * starts). Past its share it starts over: replays.
 */
export const LUA = (file: string, threads: number, ts: number, first: number, last: number) => `
local counter = 1
function setup(thread)
  thread:set("me", counter)
  counter = counter + 1
end
function init(args)
  reqs = {}
  local n = 0
  for line in io.lines("${file}") do
    n = n + 1
    if n > ${last} then break end
    if n >= ${first} and (n - ${first} - me + 1) % ${threads} == 0 then
      local dev, sig, id, body = line:match("^([^\\t]*)\\t([^\\t]*)\\t([^\\t]*)\\t(.*)$")
      reqs[#reqs + 1] = wrk.format("POST", "/device/v1/events", {
        ["Content-Type"] = "application/json",
        ["Idempotency-Key"] = id,
        ["X-Device-Id"] = dev,
        ["X-Timestamp"] = "${ts}",
        ["X-Signature-Alg"] = "HMAC-SHA256",
        ["X-Signature"] = sig,
      }, body)
    end
  end
  i = 0
end
function request()
  i = i + 1
  if i > #reqs then i = 1 end
  return reqs[i]
end
`;
