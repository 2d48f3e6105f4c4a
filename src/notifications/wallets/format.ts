// How a wallet and its formats are written (recogniser.ts reads them). A format is a sentence with
// three holes: {name}, {amount}, {code}; the rest is the wallet's wording, matched whole (from the
// first character to the last), without regard to case or accents.

export interface PaymentFormat {
  /** `<wallet>.<what>`, e.g. `yape.payment_received`: shown in answers and lists. */
  id: string;
  /** The event's `source` (contract §6): the wallet the money came through. */
  source: string;
  pattern: RegExp;
}

export interface FormatExample {
  title?: string;
  text: string;
  /** What the text reads as; `null` for a text the format must not read. */
  reads: { amount: number; payer_name: string | null; security_code: string | null } | null;
}

export interface Wallet {
  /** Prefix of its formats, e.g. `yape`. */
  id: string;
  /** The Android packages whose notifications are this wallet's, and only those. */
  packages: string[];
  /** Titles that phones sometimes run into the text ("Confirmación de Pago: Yape! …"). */
  titles?: string[];
  payments: PaymentFormat[];
  /**
   * Known wordings of this wallet that are not money received, read before the general rules
   * (recogniser.ts), e.g. an advert that speaks of deposits. Its format is `<wallet>.<id>`.
   */
  notPayments?: { id: string; pattern: RegExp }[];
  /** Texts beside the formats, each read in test/notifications-recogniser.test.ts. */
  examples: FormatExample[];
}

/**
 * The payer's name as shown: words separated by single spaces, the first starting with a letter.
 * A word is letters and digits with `'`, `&`, `*`, `-` and a trailing `,`, or `&` alone, or an
 * initial with its period (`D.`), or an abbreviation of such (`E.I.R.L.`); a longer word never ends with a period, so
 * a sentence before the wording ("No se pudo completar. Juan te envió…") is no name. At most 128
 * characters (recogniser.ts).
 */
const WORD = String.raw`(?:\p{L}\.(?:\p{L}\.)*|[\p{L}\p{N}][\p{L}\p{M}\p{N}'’&*\-]*,?|&)`;
const NAME = String.raw`(?<name>(?=\p{L})${WORD}(?: ${WORD}){0,23}?)`;
/** `S/` or `S/.`, maybe a space, a number (readAmount decides what it is worth). */
const AMOUNT = String.raw`S\/\.? ?(?<amount>\d[\d.,]{0,24})`;
const CODE = String.raw`(?<code>\d{3})`;

const ACCENTS: Record<string, string> = { a: "[aá]", e: "[eé]", i: "[ií]", o: "[oó]", u: "[uúü]", á: "[aá]", é: "[eé]", í: "[ií]", ó: "[oó]", ú: "[uúü]" };

/**
 * A format's pattern from its wording: `{name} te envió un pago por {amount}`. Literal text is
 * escaped and matched with or without accents and in any case; `[…]` marks an optional part
 * (`[.]`), `(a|b)` a choice. The text may end with `.` or `!` after it.
 */
export function wording(template: string): RegExp {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (template.startsWith("{name}", i)) (out += NAME), (i += 5);
    else if (template.startsWith("{amount}", i)) (out += AMOUNT), (i += 7);
    else if (template.startsWith("{code}", i)) (out += CODE), (i += 5);
    else if (c === "[") out += "(?:";
    else if (c === "]") out += ")?";
    else if (c === "(") out += "(?:";
    else if (c === ")" || c === "|") out += c;
    else if (ACCENTS[c.toLowerCase()]) out += ACCENTS[c.toLowerCase()];
    else out += c.replace(/[.*+?^$\\/]/g, (x) => `\\${x}`);
  }
  return new RegExp(`^${out}(?: ?[.!])?$`, "iu");
}
