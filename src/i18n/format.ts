// Amounts and times as a merchant reads them (contract §18): `S/ 1,250.00` in either language, and
// times in the box's local time zone (the process's TZ, as set for the service).
import type { Lang, Translate } from "./index";

const NUMBER = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Cents as soles: `S/ 1,250.00`. */
export const soles = (cents: number): string => `S/ ${NUMBER.format(cents / 100)}`;
/** Cents as a plain number of soles for a form field: `25.01`. */
export const solesValue = (cents: number): string => (cents / 100).toFixed(2);

/**
 * A typed amount in soles (`25`, `25.5`, `25.50`, `1,250.00`, `25,50`) as cents, or null. A comma
 * followed by exactly two digits at the end is a decimal comma; other commas group thousands.
 */
export function parseSoles(text: string): number | null {
  let s = text.trim().replace(/^S\/\s*/i, "");
  if (/^\d+,\d{1,2}$/.test(s)) s = s.replace(",", ".");
  else if (/^\d{1,3}(,\d{3})+(\.\d{1,2})?$/.test(s)) s = s.replace(/,/g, "");
  const m = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
  return cents >= 1 && cents <= 100_000_000 ? cents : null;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(lang: Lang, kind: "time" | "date" | "dateTime"): Intl.DateTimeFormat {
  const id = `${lang}:${kind}`;
  let f = formats.get(id);
  if (!f) {
    const locale = lang === "es" ? "es-PE" : "en-GB";
    const options: Intl.DateTimeFormatOptions =
      kind === "time"
        ? { hour: "2-digit", minute: "2-digit", hour12: false }
        : kind === "date"
          ? { day: "numeric", month: "short", year: "numeric" }
          : { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hour12: false };
    formats.set(id, (f = new Intl.DateTimeFormat(locale, options)));
  }
  return f;
}

export const clockTime = (ms: number, lang: Lang): string => format(lang, "time").format(ms);
export const calendarDate = (ms: number, lang: Lang): string => format(lang, "date").format(ms);
export const dateAndTime = (ms: number, lang: Lang): string => format(lang, "dateTime").format(ms);

/** `hace 3 min`, `hace 2 h`: how long ago, for "last seen". */
export function ago(ms: number | null, now: number, t: Translate): string {
  if (ms === null) return t("when.never");
  const minutes = Math.floor(Math.max(0, now - ms) / 60_000);
  if (minutes < 1) return t("when.now");
  if (minutes < 60) return t("when.minutes", { n: minutes });
  if (minutes < 48 * 60) return t("when.hours", { n: Math.floor(minutes / 60) });
  return t("when.days", { n: Math.floor(minutes / 1440) });
}

/** Midnight of `now`'s day in the box's time zone, as epoch ms. */
export function startOfLocalDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

const WALLET_NAMES: Record<string, string> = { yape: "Yape", plin: "Plin", bcp: "BCP", interbank: "Interbank", bbva: "BBVA", scotiabank: "Scotiabank" };
/** The wallets offered in filters and in "Simular pago"; others show by their own id. */
export const KNOWN_WALLETS = Object.keys(WALLET_NAMES);
export const walletName = (source: string): string => WALLET_NAMES[source] ?? source;

// ---- the command line (issue 15): times a person can place, and lengths of time in words

/** The box's time zone, as the process sees it (TZ, else the system's). */
export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";

/** ISO 8601 in the box's time zone with its offset: `2026-11-22T08:31:41-05:00`. */
export function isoLocal(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");
  const zone = offset === 0 ? "Z" : `${offset > 0 ? "+" : "-"}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`;
}

/** `22 nov 2026, 08:31 (America/Lima, 2026-11-22T08:31:41-05:00)`: for a person, and exact. */
export function localTime(ms: number, lang: Lang, t: Translate): string {
  const local = `${calendarDate(ms, lang)}, ${clockTime(ms, lang)}`;
  return t("cli.time.at", { local, zone: timeZone(), iso: isoLocal(ms) });
}

/** `15 min`, `3 días`, `1 h 30 min`: a length of time in words, at most two units. */
export function duration(seconds: number, t: Translate): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t("cli.duration.seconds", { n: s });
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const parts: string[] = [];
  if (days > 0) parts.push(days === 1 ? t("cli.duration.day") : t("cli.duration.days", { n: days }));
  if (hours > 0) parts.push(t("cli.duration.hours", { n: hours }));
  if (minutes > 0 && days === 0) parts.push(t("cli.duration.minutes", { n: minutes }));
  return parts.slice(0, 2).join(" ");
}

/** `900`, `90s`, `15m`, `2h`, `3d` as seconds; null when it is none of these. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d{1,9})\s*(s|m|min|h|d)?\s*$/i.exec(text);
  if (!m) return null;
  const unit = { s: 1, m: 60, min: 60, h: 3600, d: 86_400 }[(m[2] ?? "s").toLowerCase() as "s"];
  return Number(m[1]) * unit;
}

/**
 * A moment typed by a person, as epoch ms: epoch ms (`1798761600000`), a date (`2027-01-01`:
 * its midnight in the box's time zone), or ISO 8601 with or without an offset (`2027-01-01T18:00`
 * is box time). Null when it is none of these.
 */
export function parseInstant(text: string): number | null {
  const s = text.trim();
  // Any other number is epoch ms (contract §1), except a year or a compact date (`2027`, `20270101`):
  // those are dates typed another way, refused rather than read as a moment of January 1970.
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    return /^(19|20)\d\d((0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01]))?$/.test(s) || n > 8_640_000_000_000_000 ? null : n;
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(s);
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", sec = "0", frac = "0", zone] = m;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(frac.padEnd(3, "0"))] as const;
  let ms: number;
  if (zone) {
    const sign = zone === "Z" ? 0 : zone[0] === "-" ? -1 : 1;
    const [zh, zm] = zone === "Z" ? [0, 0] : [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
    ms = Date.UTC(...parts) - sign * (zh * 60 + zm) * 60_000;
  } else {
    ms = new Date(...parts).getTime(); // local time of the box
  }
  // Reject dates that roll over (2027-02-30) rather than guess.
  const check = new Date(Date.UTC(parts[0], parts[1], parts[2]));
  if (check.getUTCMonth() !== parts[1] || check.getUTCDate() !== parts[2] || parts[3] > 23 || parts[4] > 59 || parts[5] > 59) return null;
  return Number.isFinite(ms) ? ms : null;
}
