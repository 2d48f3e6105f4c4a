// Amounts as wallet notifications write them (contract §16), into integer cents. Every written form
// seen in captures or claimed by peers reads the same way (notes/notifications.md, "Safe rule"):
// `S/ 56.7`, `S/56.70`, `S/ 1`, `S/.11.90`, `S/ 1,250.50`, `S/ 10,50`. Anything else is not an
// amount: the notification is then unrecognised and kept, never guessed.
import { MAX_AMOUNT } from "../http/schemas";

/**
 * The number after `S/` (as the pattern captured it, a trailing `.` or `,` included) in cents, or
 * null. A trailing `.` or `,` ends the sentence (`S/ 1. El cód…`); when a number has both `,` and
 * `.`, the last is the decimal point and the others group thousands by three; a lone `,` before
 * exactly three digits groups thousands, before one or two it is the decimal point; a `.` before
 * three digits is neither (`1.250` could be either), so it is not read.
 */
export function readAmount(written: string): number | null {
  const n = written.replace(/[.,]$/, "");
  if (!/^\d[\d.,]*$/.test(n) || n.length > 20) return null;
  const last = Math.max(n.lastIndexOf("."), n.lastIndexOf(","));
  let whole = n;
  let decimals = "";
  if (last !== -1) {
    const tail = n.slice(last + 1);
    if (tail.length === 3) {
      // 2,000 or 1,250,000: commas that group thousands, no decimals (1.250 is refused below)
    } else if (tail.length === 1 || tail.length === 2) {
      whole = n.slice(0, last);
      decimals = tail;
    } else return null;
  }
  const point = decimals === "" ? null : n[last]!;
  const group = point === "," ? "." : ",";
  if (point !== null && whole.includes(point)) return null;
  if (whole.includes(group) && !new RegExp(`^\\d{1,3}(?:\\${group}\\d{3})+$`).test(whole)) return null;
  const digits = whole.split(group).join("");
  if (!/^\d{1,9}$/.test(digits)) return null;
  const cents = Number(digits) * 100 + Number(decimals.padEnd(2, "0"));
  return cents >= 1 && cents <= MAX_AMOUNT ? cents : null;
}
