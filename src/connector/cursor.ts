// Opaque cursors (contract §11, §12): a position in the matches feed or in the events view, encoded
// so that clients treat it as a token. The two kinds cannot be mixed up, and anything we did not
// produce is `400 invalid_cursor`.
import { DomainError } from "../errors";

export type CursorKind = "match" | "event";

const TAG: Record<CursorKind, string> = { match: "m1", event: "e1" };
const MAX_CURSOR_LENGTH = 64;

export function encodeCursor(kind: CursorKind, seq: number): string {
  return Buffer.from(`${TAG[kind]}:${seq}`, "utf8").toString("base64url");
}

/** The position inside a cursor, or null when the text is not a cursor of this kind. */
export function parseCursor(kind: CursorKind, text: string): number | null {
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const decoded = Buffer.from(text, "base64url").toString("utf8");
  const m = /^([a-z]\d):(0|[1-9]\d{0,15})$/.exec(decoded);
  if (!m || m[1] !== TAG[kind]) return null;
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(seq)) return null;
  return encodeCursor(kind, seq) === text ? seq : null; // one spelling per position
}

export function invalidCursor(field: string, detail = "This cursor was not issued by this feed"): DomainError {
  return new DomainError("invalid_cursor", detail, { errors: [{ field, message: "not a cursor of this feed" }] });
}

export function decodeCursor(kind: CursorKind, text: string, field: string): number {
  const seq = parseCursor(kind, text);
  if (seq === null) throw invalidCursor(field);
  return seq;
}
