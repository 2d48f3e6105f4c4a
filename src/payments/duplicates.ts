// contract §6: two phones of one shop often report the same payment. These are the rules, as pure
// functions; ingest.ts narrows the candidates with indexed queries and lets these decide.

/** The fields of an event that the rules look at. */
export interface Report {
  /** null for events without a phone (the connector's test payments): they never take part. */
  deviceId: string | null;
  source: string;
  amount: number;
  occurredAt: number;
  payerName: string | null;
  securityCode: string | null;
  reference: string | null;
}

export interface StoredReport extends Report {
  seq: number;
  eventId: string;
  matchStatus: string;
}

/** contract §6: occurred_at within this many ms counts as the same moment. */
export const DUPLICATE_WINDOW_MS = 120_000;

export type DuplicateRule = "reference" | "details";

/**
 * Whether `incoming` repeats `other`, and by which rule:
 * - `reference`: same source and same reference, both present;
 * - `details`: same source, amount and payer_name (both absent counts as the same), occurred_at
 *   within 120 000 ms, and the same security_code where both have one.
 * Only another device's event counts: one phone's own events are never duplicates of each other.
 */
export function duplicateRule(incoming: Report, other: Report): DuplicateRule | null {
  if (incoming.deviceId === null || other.deviceId === null || incoming.deviceId === other.deviceId) return null;
  if (incoming.source !== other.source) return null;
  if (incoming.reference !== null && other.reference !== null && incoming.reference === other.reference) return "reference";
  if (
    incoming.amount === other.amount &&
    incoming.payerName === other.payerName &&
    Math.abs(incoming.occurredAt - other.occurredAt) <= DUPLICATE_WINDOW_MS &&
    (incoming.securityCode === null || other.securityCode === null || incoming.securityCode === other.securityCode)
  ) {
    return "details";
  }
  return null;
}

/**
 * The event that `incoming` duplicates, among stored candidates, or null. When several qualify the
 * first report of the payment is preferred (an event that is not itself a duplicate), then a
 * reference match, then the closest occurred_at, then the earliest stored.
 */
export function findOriginal<S extends StoredReport>(incoming: Report, candidates: readonly S[]): S | null {
  let best: { c: S; key: [number, number, number, number] } | null = null;
  for (const c of candidates) {
    const rule = duplicateRule(incoming, c);
    if (!rule) continue;
    const key: [number, number, number, number] = [
      c.matchStatus === "duplicate" ? 1 : 0,
      rule === "reference" ? 0 : 1,
      Math.abs(incoming.occurredAt - c.occurredAt),
      c.seq,
    ];
    if (!best || less(key, best.key)) best = { c, key };
  }
  return best?.c ?? null;
}

function less(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}
