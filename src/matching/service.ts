// Seam between event ingestion and the matching engine (contract §10). Ingestion calls
// matchNewEvent inside the transaction that stored a non-duplicate event.
//
// NOTE: the engine itself is not wired in yet (connector issue). Until it is, every event stays
// "unmatched", exactly as the device-surface issue allows; nothing here pretends otherwise.
import type { Db } from "../store/db";

export interface MatchOutcome {
  status: "matched" | "unmatched" | "ambiguous";
  orderId: string | null;
}

/**
 * Evaluates the stored event `eventSeq` against pending orders and records the outcome on the event
 * row (and a match, when one is made). Must be called inside the storing transaction.
 */
export function matchNewEvent(_tx: Db, _now: number, _eventSeq: number): MatchOutcome {
  return { status: "unmatched", orderId: null };
}
