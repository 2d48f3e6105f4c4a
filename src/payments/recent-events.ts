// Moving recent events into the big indexes of older ones (schema.ts, the `recent` column). A new
// event's random keys (its event id, its reference) go into small indexes of recent events; written
// one event at a time, a leaf of an index of a million entries costs a page write each. Moved
// later, a batch at a time, while the box is quiet, many keys share the pages they land on and the
// fsyncs of one commit. Correctness never waits for it: every lookup asks both partitions, and
// the database keeps one event per phone and event id across them (migration 0008).
import { perConnection, type Db } from "../store/db";

/**
 * Events per move while quiet: one write of the writer, kept near its 50 ms budget (contract §14;
 * 1000 took about 70 ms on the bench seed, 2000 up to 224 ms).
 */
export const MOVE_BATCH = 500;
/** The box is quiet when no event has been received for this long: then recent events are moved. */
export const QUIET_AFTER_MS = 60_000;
/**
 * Past this many recent events they are moved even while events keep coming (in smaller batches,
 * MOVE_BATCH_BUSY), so that the recent indexes stay small on a box that is never quiet.
 */
export const RECENT_CAP = 200_000;
export const MOVE_BATCH_BUSY = 250;

export const RECENT_SQL = {
  // events_recent_seq_idx: the oldest recent event.
  oldestRecent: `SELECT seq FROM events WHERE recent = 1 ORDER BY seq LIMIT 1`,
  // The newest event (the rowid's end).
  newest: `SELECT seq, received_at AS receivedAt FROM events ORDER BY seq DESC LIMIT 1`,
  // The oldest recent events (events_recent_seq_idx), each moved out of the recent partial indexes
  // and into the old ones; a key already among the old would fail events_device_event_uq.
  move: `UPDATE events SET recent = 0 WHERE seq IN (SELECT seq FROM events WHERE recent = 1 ORDER BY seq LIMIT $limit)`,
} as const;

const statementsOf = perConnection((client) => ({
  oldestRecent: client.prepare<{ seq: number }, []>(RECENT_SQL.oldestRecent),
  newest: client.prepare<{ seq: number; receivedAt: number } | null, []>(RECENT_SQL.newest),
  move: client.prepare<never, [{ limit: number }]>(RECENT_SQL.move),
}));

/**
 * How many recent events to move now, by the policy above: none while events keep coming (unless
 * more than RECENT_CAP wait), a batch once the box has been quiet for QUIET_AFTER_MS.
 */
export function recentEventsToMove(db: Db, now: number): number {
  const s = statementsOf(db);
  const oldest = s.oldestRecent.get();
  const newest = s.newest.get();
  // A damaged database (a restore copied in while a server ran) may hold rows without these
  // values: nothing is moved, and nothing throws every second.
  if (!oldest || !newest || typeof newest.receivedAt !== "number") return 0;
  if (now - newest.receivedAt >= QUIET_AFTER_MS) return MOVE_BATCH;
  // seq only grows, so this bounds the number of recent events from above.
  const waiting = newest.seq - oldest.seq + 1;
  return waiting > RECENT_CAP ? MOVE_BATCH_BUSY : 0;
}

/** Moves up to `limit` of the oldest recent events (a write of the writer); returns how many it moved. */
export function moveRecentEvents(tx: Db, limit: number): number {
  if (limit <= 0) return 0;
  return statementsOf(tx).move.run({ limit }).changes;
}

/** The periodic step (a write of the writer): moves one batch when the policy says so. */
export function moveDueRecentEvents(tx: Db, now: number): number {
  return moveRecentEvents(tx, recentEventsToMove(tx, now));
}

/** After a failed move, the next try waits this long, doubled after each further failure up to MAX. */
export const RETRY_AFTER_FAILURE_MS = 5_000;
export const MAX_RETRY_AFTER_FAILURE_MS = 5 * 60_000;

export type MoverStep = { moved: number } | { failed: Error; failures: number; retryAt: number } | { waitingUntil: number };

/**
 * serve's mover, stepped every second: moveDueRecentEvents on the writer, except that after a failure
 * (the database locked past busy_timeout, a full disk) it waits before trying again, longer after
 * each failure, instead of redoing and rolling back the same batch, and logging it, every second.
 */
export function recentEventsMover(moveDue: (now: number) => Promise<number>) {
  let failures = 0;
  let retryAt = 0;
  return {
    async step(now: number): Promise<MoverStep> {
      if (now < retryAt) return { waitingUntil: retryAt };
      try {
        const moved = await moveDue(now);
        failures = 0;
        return { moved };
      } catch (e) {
        failures++;
        retryAt = now + Math.min(RETRY_AFTER_FAILURE_MS * 2 ** (failures - 1), MAX_RETRY_AFTER_FAILURE_MS);
        return { failed: e as Error, failures, retryAt };
      }
    },
  };
}
