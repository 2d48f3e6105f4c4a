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
