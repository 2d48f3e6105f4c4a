// Reading wallet notifications on the box (contract §16). Pure: no HTTP, no SQL, no clock. The
// wallets and their formats are data (wallets/*.ts), so that a new wording is one pattern and its
// example; the rules here decide the order in which they are tried:
//   1. only a wallet's own packages are read as that wallet (the same Yape text forwarded by
//      WhatsApp or Gmail is not a Yape payment: it is unrecognised);
//   2. a payment format of that wallet reads the payment, and nothing else does;
//   3. Android's redaction of the text is unrecognised, with its own format, so the merchant learns
//      that this phone hides payments;
//   4. rules for look-alikes (money sent, card charges, collection requests, codes, promotions, texts
//      without an amount) say not_a_payment, whose text is then not kept;
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

/** No notification of a wallet is this long; longer texts are not read at all. */
const MAX_TEXT = 2048;

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

/** The text without a copy of a title run into its start ("Confirmación de Pago: Yape! …"). */
function withoutTitle(text: string, titles: string[]): string | null {
  const lower = text.toLowerCase();
  for (const t of titles) {
    const title = normaliseText(t).toLowerCase();
    if (title === "" || !lower.startsWith(title)) continue;
    const rest = /^ ?[:\-–]? (.+)$/su.exec(text.slice(title.length));
    if (rest) return rest[1]!;
  }
  return null;
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
    if (!wallet || typeof n.text !== "string" || n.text.length > MAX_TEXT) return { status: "unrecognized", format: null };
    const text = normaliseText(n.text);
    const title = n.title ? normaliseText(n.title) : "";
    const stripped = withoutTitle(text, [title, ...(wallet.titles ?? [])]);
    // Without the title first: with it, the title would read as the start of the payer's name.
    for (const candidate of stripped === null ? [text] : [stripped, text]) {
      for (const f of wallet.payments) {
        const m = f.pattern.exec(candidate);
        const amount = m?.groups?.amount !== undefined ? readAmount(m.groups.amount) : null;
        if (!m || amount === null) continue;
        const name = m.groups?.name?.trim() || null;
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
    for (const rule of NOT_A_PAYMENT) {
      if (rule.test(text, title)) return { status: "not_a_payment", format: `${wallet.id}.${rule.id}` };
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
  test(text: string, title: string): boolean;
}

/**
 * In order. Their text is not kept (contract §16), so each names what the notification is, and none
 * can take a payment's wording: payment formats are tried first, and a text no rule names stays
 * unrecognised.
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
  { id: "no_amount", test: (t, title) => !HAS_MONEY.test(t) && !HAS_MONEY.test(title) },
];
