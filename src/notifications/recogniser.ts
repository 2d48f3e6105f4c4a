// Reading wallet notifications on the box (contract §16). Pure: no HTTP, no SQL, no clock. The
// wallets and their formats are data (wallets/*.ts), so that a new wording is one pattern and its
// example; the rules here decide the order in which they are tried:
//   1. only a wallet's own packages are read as that wallet (the same Yape text forwarded by
//      WhatsApp or Gmail is not a Yape payment: it is unrecognised);
//   2. a payment format of that wallet reads the payment, and nothing else does;
//   3. Android's redaction of the text is unrecognised, with its own format, so the merchant learns
//      that this phone hides payments;
//   4. a wallet's known non-payment wordings, then rules for look-alikes (money sent, collection
//      requests, codes, promotions, card charges) say not_a_payment, whose text is then not kept.
//      A not_a_payment can never be read again, so no rule applies to a text that speaks of money
//      received ("recibiste", "te envió", "abono"…): that may be a payment in a wording not known yet;
//   5. anything else is unrecognised: kept and read again when the box learns its format.
import { readAmount } from "./amount";
import type { Wallet } from "./wallets/format";
import { WALLETS } from "./wallets";

export type NotificationStatus = "payment" | "not_a_payment" | "unrecognized";

/** The payment fields a recognised notification gives (contract §16 `payment`). */
export interface ReadPayment {
  source: string;
  amount: number;
  currency: "PEN";
  payer_name: string | null;
  security_code: string | null;
  reference: string | null;
}

export type Reading =
  | { status: "payment"; format: string; payment: ReadPayment }
  | { status: "not_a_payment"; format: string }
  | { status: "unrecognized"; format: string | null };

export interface NotificationText {
  package: string;
  title?: string | null;
  text: string;
}

export type Recognise = (n: NotificationText) => Reading;

/** The format of a wallet notification whose text Android replaced (notes, "Android itself"). */
export const REDACTED_FORMAT = "android.redacted";

/** Texts longer than this (the API takes 1 024 characters) are not read: the recogniser is never slow. */
const MAX_TEXT = 2048;
/** contract §6: a payer's name is at most this long. */
const MAX_NAME = 128;

/**
 * NFC; zero-width characters removed; every run of Unicode white space (the no-break space Yape
 * puts after `S/` included) one plain space; trimmed.
 */
export function normaliseText(s: string): string {
  return s
    .normalize("NFC")
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, "")
    .replace(/\s+/gu, " ")
    .trim();
}

/**
 * The text without a title run into its start: the wallet's own titles ("Confirmación de Pago Yape!
 * …"), or the notification's title when a `:` or `-` follows it. A title that is only followed by a
 * space could be the start of the payer's name (title "Luis", text "Luis Alberto te ha plineado…").
 */
function withoutTitle(text: string, title: string, walletTitles: readonly string[]): string | null {
  const lower = text.toLowerCase();
  const cut = (t: string, separator: RegExp) => {
    const head = normaliseText(t).toLowerCase();
    if (head === "" || !lower.startsWith(head)) return null;
    return separator.exec(text.slice(head.length))?.[1] ?? null;
  };
  for (const t of walletTitles) {
    const rest = cut(t, /^ ?[:\-–]? (.+)$/su);
    if (rest !== null) return rest;
  }
  return cut(title, /^ ?[:\-–] (.+)$/su);
}

const REDACTED = [
  /^sensitive notification content hidden\.?$/i,
  /^contenido de notificaci[oó]n sensible oculto\.?$/i,
  /^system has hidden the notification content\b/i,
];

/** A recogniser over `wallets` (the built-in ones by default; tests bring their own). */
export function createRecogniser(wallets: readonly Wallet[] = WALLETS): Recognise {
  const byPackage = new Map<string, Wallet>();
  for (const w of wallets) for (const p of w.packages) byPackage.set(p, w);
  return (n) => {
    const wallet = byPackage.get(n.package.trim());
    if (!wallet || n.text.length > MAX_TEXT) return { status: "unrecognized", format: null };
    const text = normaliseText(n.text);
    const title = n.title ? normaliseText(n.title) : "";
    const stripped = withoutTitle(text, title, wallet.titles ?? []);
    // Without the title first: with it, the title would read as the start of the payer's name.
    for (const candidate of stripped === null ? [text] : [stripped, text]) {
      for (const f of wallet.payments) {
        const m = f.pattern.exec(candidate);
        const amount = m?.groups?.amount !== undefined ? readAmount(m.groups.amount) : null;
        const name = m?.groups?.name ?? null;
        if (!m || amount === null || (name !== null && name.length > MAX_NAME)) continue;
        return {
          status: "payment",
          format: f.id,
          payment: { source: f.source, amount, currency: "PEN", payer_name: name, security_code: m.groups?.code ?? null, reference: null },
        };
      }
    }
    if (REDACTED.some((r) => r.test(text))) return { status: "unrecognized", format: REDACTED_FORMAT };
    // What an automator sent instead of the text: kept, so that someone sees the phone is broken.
    if (PLACEHOLDER.test(text)) return { status: "unrecognized", format: null };
    const known = wallet.notPayments?.find((k) => k.pattern.test(text));
    if (known) return { status: "not_a_payment", format: `${wallet.id}.${known.id}` };
    if (MONEY_RECEIVED.test(text)) return { status: "unrecognized", format: null };
    for (const rule of NOT_A_PAYMENT) {
      if (rule.test(text)) return { status: "not_a_payment", format: `${wallet.id}.${rule.id}` };
    }
    return { status: "unrecognized", format: null };
  };
}

/** The recogniser of this version of the box. */
export const recognise: Recognise = createRecogniser();

// ---- look-alikes: a wallet's notifications that are not money received

/** Any of the phrases (regex syntax), as whole words: `\b` knows no accented letters. */
const phrases = (...ps: string[]) => new RegExp(`(?<![\\p{L}\\p{N}])(?:${ps.join("|")})(?![\\p{L}\\p{N}])`, "iu");

/** An amount of money anywhere in the text: `S/`, `$`, `US$`, `soles`. */
const HAS_MONEY = /S\/|\$|(?<!\p{L})(?:soles|PEN)(?!\p{L})/iu;
/** An automation tool's unexpanded placeholder instead of the text (`[not_text]`, `%text%`). */
const PLACEHOLDER = /^(?:\[[^\]]*\]|%[^%]*%|\{[^}]*\}|\$\w+)$/u;

interface Rule {
  id: string;
  test(text: string): boolean;
}

/** Words of money received: a text with one is never dropped as not a payment (rule 4 above). */
const MONEY_RECEIVED = phrases(
  "recib[ií]\\p{L}*", // recibiste, recibió, recibido; not "recibo" (a bill)
  "te envi[oó](?! una solicitud)",
  "te (?:ha )?plin\\p{L}*",
  "plinead\\p{L}*",
  "te yape\\p{L}*",
  "te hizo un pago",
  "te pag[oó]",
  "te transfiri[oó]",
  "abon\\p{L}*",
  "dep[oó]sit\\p{L}*",
  "ingres[oó]",
);

/**
 * In order, after the payment formats and MONEY_RECEIVED. Their text is not kept (contract §16), so
 * each names what the notification is; a text no rule names stays unrecognised. A text without an
 * amount is not dropped for that alone: Android may have hidden it in a wording not known here.
 */
const NOT_A_PAYMENT: Rule[] = [
  { id: "payment_sent", test: (t) => phrases("yapeaste", "plineaste", "enviaste", "transferiste", "tu plin fue enviado", "realizaste una?").test(t) },
  {
    id: "collection_request",
    test: (t) => phrases("te est[aá] cobrando", "te cobr[oó]", "solicitud de (?:cobro|pago)", "te envi[oó] una solicitud", "te pide", "te solicita").test(t),
  },
  { id: "login_code", test: (t) => !HAS_MONEY.test(t) && phrases("c[oó]digo", "clave", "token", "otp", "contraseña").test(t) },
  {
    id: "promotion",
    test: (t) =>
      phrases(
        "pr[eé]stamos?",
        "preaprobad\\p{L}*",
        "cuotas",
        "dscto",
        "descuentos?",
        "promo\\p{L}*",
        "ofertas?",
        "sorteos?",
        "cashback",
        "cambia ahora",
        "al toque",
        "vender d[oó]lares",
        "recibo venza",
        "exclusivo",
        "solo hoy",
        "ingresa al app",
      ).test(t),
  },
  { id: "card_charge", test: (t) => phrases("tarjetas?", "pago recurrente").test(t) || /^consumo de /iu.test(t) },
];
