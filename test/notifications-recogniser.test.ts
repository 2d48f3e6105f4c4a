// The recogniser of wallet notifications (contract §16), a pure function: the fixture corpus of
// real and breakage texts (test/fixtures/notifications.json, each with where it came from), the
// examples beside each wallet's formats, amounts in every written form, and properties and fuzzing:
// any amount and name written in a wallet's format reads back exactly, and no text makes the
// recogniser throw or read a payment out of something that is not one of its formats.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import corpus from "./fixtures/notifications.json";
import { readAmount } from "../src/notifications/amount";
import { createRecogniser, normaliseText, recognise, REDACTED_FORMAT, type Reading } from "../src/notifications/recogniser";
import { WALLETS } from "../src/notifications/wallets";
import { wording, type Wallet } from "../src/notifications/wallets/format";

const YAPE = "com.bcp.innovacxion.yapeapp";
const INTERBANK = "pe.com.interbank.mobilebanking";
const BBVA = "com.bbva.nxt_peru";

interface Case {
  id: string;
  from: string;
  package: string;
  title: string | null;
  text: string;
  expect: { status: Reading["status"]; format: string | null; payment?: { source: string; amount: number; payer_name: string | null; security_code: string | null } };
}

const cases = corpus as Case[];

describe("the fixture corpus", () => {
  test("has at least 40 cases, each with where it came from and a unique id", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    for (const c of cases) expect(c.from.length).toBeGreaterThan(5);
  });

  test("covers every wallet format, look-alikes, and the breakages peers reported", () => {
    const formats = new Set(cases.map((c) => c.expect.format));
    for (const w of WALLETS) for (const f of w.payments) expect(formats).toContain(f.id);
    for (const f of ["yape.payment_sent", "yape.promotion", "interbank.card_charge", REDACTED_FORMAT]) expect(formats).toContain(f);
    const texts = cases.map((c) => c.text);
    expect(texts.some((t) => t.includes("\u00a0"))).toBe(true); // a no-break space after S/
    expect(texts.some((t) => t.includes("[not_text]"))).toBe(true); // an automator's placeholder
    expect(texts.some((t) => /^Confirmación de Pago:? /.test(t))).toBe(true); // the title run into the text
    expect(cases.some((c) => c.package === "com.whatsapp" || c.package === "com.google.android.gm")).toBe(true);
  });

  test.each(cases.map((c) => [c.id, c] as const))("%s", (_id, c) => {
    const reading = recognise({ package: c.package, title: c.title, text: c.text });
    expect(reading.status).toBe(c.expect.status);
    expect(reading.format).toBe(c.expect.format);
    if (c.expect.status === "payment") {
      expect(reading.status === "payment" && reading.payment).toEqual({ ...c.expect.payment!, currency: "PEN", reference: null });
    }
  });
});

describe("the examples beside each wallet's formats", () => {
  const examples = WALLETS.flatMap((w) => w.examples.map((e, i) => [`${w.id} #${i + 1}: ${e.text}`, w, e] as const));
  test.each(examples)("%s", (_name, w, e) => {
    const reading = recognise({ package: w.packages[0]!, title: e.title, text: e.text });
    if (e.reads === null) expect(reading.status).not.toBe("payment");
    else {
      expect(reading.status).toBe("payment");
      if (reading.status === "payment") expect({ amount: reading.payment.amount, payer_name: reading.payment.payer_name, security_code: reading.payment.security_code }).toEqual(e.reads);
    }
  });
});

describe("amounts", () => {
  test.each([
    ["56.7", 5670],
    ["1.", 100],
    ["0.1.", 10],
    ["1.00", 100],
    ["11.90", 1190],
    ["1,250.50", 125050],
    ["1.250,50", 125050],
    ["10,50", 1050],
    ["1,5", 150],
    ["2,000", 200000],
    ["1,000,000", 100000000],
    ["25", 2500],
  ] as const)("%s is %i cents", (written, cents) => expect(readAmount(written)).toBe(cents));

  test.each(["0", "0.00", "1.250", "1,,000", "1..5", "12,34,567", "1000000.01", "1,000,000.01", "1.234", ",5", "1,2345"])("%s is not an amount", (written) => {
    expect(readAmount(written)).toBeNull();
  });

  test("the full stop that ends a sentence is not a decimal point, in every place it appears", () => {
    const read = (text: string) => recognise({ package: YAPE, text });
    for (const text of ["Ana Per* te envió un pago por S/ 1. El cód. de seguridad es: 123", "Ana Per* te envió un pago por S/ 1.", "Ana Per* te envió un pago por S/1 ."]) {
      const r = read(text);
      expect(r.status === "payment" && r.payment.amount).toBe(100);
    }
  });
});

describe("names and codes", () => {
  const payment = (pkg: string, text: string, title?: string) => {
    const r = recognise({ package: pkg, title, text });
    if (r.status !== "payment") throw new Error(`not a payment: ${text} → ${JSON.stringify(r)}`);
    return r.payment;
  };

  test("a name is kept as shown: `*`, accents and case; the Yape! prefix and its `!` are dropped", () => {
    expect(payment(YAPE, "Jesús Moi* te envió un pago por S/ 3. El cód. de seguridad es: 555").payer_name).toBe("Jesús Moi*");
    expect(payment(YAPE, "¡Yape! JHOANN PACAHUALA te envió un pago por S/ 5").payer_name).toBe("JHOANN PACAHUALA");
    expect(payment(YAPE, "Yape! Jeferson ricardo Dilas barra te envió un pago por S/ 1.00").payer_name).toBe("Jeferson ricardo Dilas barra");
    expect(payment(YAPE, "Yanina  Man*\u00a0te envió un pago por S/ 5").payer_name).toBe("Yanina Man*");
  });

  test("security codes are strings with their leading zeros, and only three digits", () => {
    expect(payment(YAPE, "Jose Orb* te envió un pago por S/ 9. El cód. de seguridad es: 021").security_code).toBe("021");
    expect(recognise({ package: YAPE, text: "Jose Orb* te envió un pago por S/ 9. El cód. de seguridad es: 0213" }).status).toBe("unrecognized");
  });

  test("the title run into the text is taken off, whatever title the phone sent", () => {
    expect(payment(YAPE, "Confirmación de Pago: Yape! Jeferson Dilas te envió un pago por S/ 1.00", "Confirmación de Pago").payer_name).toBe("Jeferson Dilas");
    expect(payment(BBVA, "Cobro con QR SANDRO RISSO MORON te hizo un pago de S/ 23.9", "Cobro con QR").payer_name).toBe("SANDRO RISSO MORON");
  });

  test("a wallet's format is read only from its own package", () => {
    const y1 = "Lidia Cas* te envió un pago por S/ 1. El cód. de seguridad es: 296";
    expect(recognise({ package: YAPE, text: y1 }).status).toBe("payment");
    for (const pkg of ["com.whatsapp", "com.google.android.gm", INTERBANK, BBVA, "com.bcp.bank.bcp", ` ${YAPE}x`]) {
      expect(recognise({ package: pkg, text: y1 }).status).not.toBe("payment");
    }
    expect(recognise({ package: YAPE, text: "Anat Marticorena te ha plineado S/ 100.00" }).status).toBe("unrecognized");
  });

  test("Android's redaction, in English and Spanish, is unrecognised with its own format, from wallets only", () => {
    for (const text of ["Sensitive notification content hidden", "Contenido de notificación sensible oculto", "System has hidden the notification content because it contains private information"]) {
      expect(recognise({ package: YAPE, text })).toEqual({ status: "unrecognized", format: REDACTED_FORMAT });
      expect(recognise({ package: BBVA, text })).toEqual({ status: "unrecognized", format: REDACTED_FORMAT });
      expect(recognise({ package: "com.whatsapp", text })).toEqual({ status: "unrecognized", format: null });
    }
  });
});

describe("formats can be brought by whoever reads (a test, the next version)", () => {
  test("a recogniser over other wallets reads their formats and nothing of the built-in ones", () => {
    const bcp: Wallet = {
      id: "bcp",
      packages: ["com.bcp.bank.bcp"],
      payments: [{ id: "bcp.yape_received", source: "bcp", pattern: wording("Recibiste un yapeo de {amount} de {name}") }],
      examples: [],
    };
    const mine = createRecogniser([bcp]);
    const r = mine({ package: "com.bcp.bank.bcp", text: "Recibiste un yapeo de S/ 9.00 de Sebastian Jeremy Yparraguirre Ocaña." });
    expect(r).toEqual({
      status: "payment",
      format: "bcp.yape_received",
      payment: { source: "bcp", amount: 900, currency: "PEN", payer_name: "Sebastian Jeremy Yparraguirre Ocaña", security_code: null, reference: null },
    });
    expect(recognise({ package: "com.bcp.bank.bcp", text: "Recibiste un yapeo de S/ 9.00 de Sebastian Jeremy Yparraguirre Ocaña." }).status).toBe("unrecognized");
    expect(mine({ package: YAPE, text: "Lidia Cas* te envió un pago por S/ 1. El cód. de seguridad es: 296" }).status).toBe("unrecognized");
  });
});

// ---- properties

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZáéíóúñüÁÉÍÓÚÑ";
const word = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 12 });
/** Names as wallets show them: words, maybe an initial with a period, maybe cut with `*`. */
const nameArb = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.boolean())
  .map(([words, initial, cut]) => {
    const parts = [...words];
    if (initial && parts.length > 1) parts.splice(1, 0, `${parts[0]![0]!.toUpperCase()}.`);
    let name = parts.join(" ");
    if (cut) name += "*";
    return name;
  });

const cents = fc.integer({ min: 1, max: 100_000_000 });
const whole = (c: number) => Math.floor(c / 100);
const dd = (c: number) => String(c % 100).padStart(2, "0");
const grouped = (n: number) => n.toLocaleString("en-US");
/** Every written form of contract §16 and the notes, each as the wallets would end a sentence after it. */
const FORMS: Record<string, (c: number) => string> = {
  "as Yape writes it (S/ 56.7, S/ 1)": (c) => `S/ ${whole(c)}${c % 100 ? `.${dd(c).replace(/0$/, "")}` : ""}`,
  "two decimals, no space (S/56.70)": (c) => `S/${whole(c)}.${dd(c)}`,
  "thousands (S/ 1,250.50)": (c) => `S/ ${grouped(whole(c))}.${dd(c)}`,
  "old notation (S/.11.90)": (c) => `S/.${whole(c)}.${dd(c)}`,
  "no-break space (S/\u00a056.7)": (c) => `S/\u00a0${whole(c)}.${dd(c)}`,
  "comma decimal (S/ 10,50)": (c) => `S/ ${whole(c)}${c % 100 ? `,${dd(c)}` : ""}`,
};
const formArb = fc.constantFrom(...Object.entries(FORMS));
const endArb = fc.constantFrom("", ".", " .", "!");

const TEXTS: [string, string, string, (name: string, amount: string, end: string, code: string) => string][] = [
  ["yape.payment_received", YAPE, "yape", (n, a, _e, code) => `${n} te envió un pago por ${a}. El cód. de seguridad es: ${code}`],
  ["yape.payment_received (no code)", YAPE, "yape", (n, a, e) => `${n} te envió un pago por ${a}${e}`],
  ["yape.payment_received_full_name", YAPE, "yape", (n, a, e) => `Yape! ${n} te envió un pago por ${a}${e}`],
  ["interbank.plin_received", INTERBANK, "plin", (n, a, e) => `${n} te ha plineado ${a}${e}`],
  ["bbva.plin_received", BBVA, "plin", (n, a, e) => `${n} te plineó ${a}${e}`],
  ["bbva.qr_payment_received", BBVA, "bbva", (n, a, e) => `${n} te hizo un pago de ${a}${e}`],
];

describe("properties", () => {
  test.each(TEXTS)("%s: any amount in any written form, and any name, reads back exactly", (_f, pkg, source, make) => {
    fc.assert(
      fc.property(cents, formArb, nameArb, endArb, fc.integer({ min: 0, max: 999 }), (c, [, form], name, end, code) => {
        const codeText = String(code).padStart(3, "0");
        const text = make(name, form(c), end, codeText);
        const r = recognise({ package: pkg, text });
        expect(r.status).toBe("payment");
        if (r.status !== "payment") return;
        expect(r.payment.amount).toBe(c);
        expect(r.payment.source).toBe(source);
        expect(r.payment.payer_name).toBe(name);
        expect(r.payment.security_code).toBe(text.includes("cód.") ? codeText : null);
      }),
      { numRuns: 400 },
    );
  });

  test("text normalisation only touches spacing and invisible characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const n = normaliseText(s);
        expect(n).toBe(n.trim());
        expect(n).not.toMatch(/\s{2}|[\u00a0\u200b]/u);
        expect(normaliseText(n)).toBe(n);
      }),
    );
  });
});

// ---- fuzzing: random and adversarial text

const VALID = "Lidia Cas* te envió un pago por S/ 1. El cód. de seguridad es: 296";
const PACKAGES = [YAPE, INTERBANK, BBVA, "com.bcp.bank.bcp", "pe.com.scotiabank.blpm.android.client", "com.whatsapp"];
const LOOKALIKES: [string, string][] = [
  ["e", "\u0435"], // Cyrillic е
  ["o", "\u043e"], // Cyrillic о
  ["a", "\u0430"], // Cyrillic а
  ["1", "\uff11"], // fullwidth digit one
  ["/", "\u2044"], // fraction slash
  ["S", "\u0405"], // Cyrillic Ѕ
];

function wellFormed(r: Reading): void {
  if (r.status !== "payment") return;
  expect(Number.isInteger(r.payment.amount) && r.payment.amount >= 1 && r.payment.amount <= 100_000_000).toBe(true);
  expect((r.payment.payer_name ?? "").length).toBeLessThanOrEqual(128);
  if (r.payment.security_code !== null) expect(r.payment.security_code).toMatch(/^\d{3}$/);
}

describe("fuzzing", () => {
  test("random text from any package never throws, and reads only well-formed payments", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PACKAGES), fc.option(fc.string({ unit: "grapheme", maxLength: 60 })), fc.string({ unit: "grapheme", maxLength: 400 }), (pkg, title, text) => {
        const r = recognise({ package: pkg, title, text });
        wellFormed(r);
        // Nothing random has a wallet's wording: no payment out of noise.
        expect(r.status).not.toBe("payment");
      }),
      { numRuns: 2000 },
    );
  });

  test("adversarial texts: very long, only digits, many S/, a format repeated, control characters", () => {
    const texts = [
      "S/ ".repeat(5000),
      "9".repeat(100_000),
      `${VALID} `.repeat(300),
      `${"A".repeat(127)}* te envió un pago por S/ 1`,
      `${"A ".repeat(2000)}te envió un pago por S/ 1`,
      "te envió un pago por S/ 1",
      "x te envió un pago por S/ ",
      "x te envió un pago por S/ 1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9",
      `x te envió un pago por S/ ${"1".repeat(30)}`,
      "x\u0000 te envió un pago por S/ 1",
      "\u202e1 S/ rop ogap nu óivne et x",
      "",
      " ",
      "\u200b",
    ];
    for (const pkg of PACKAGES) {
      for (const text of texts) {
        const r = recognise({ package: pkg, text });
        wellFormed(r);
      }
    }
    // A name longer than 128 characters is not a name.
    expect(recognise({ package: YAPE, text: `${"A".repeat(200)} te envió un pago por S/ 1` }).status).toBe("unrecognized");
    expect(recognise({ package: YAPE, text: `${VALID} `.repeat(300) }).status).toBe("unrecognized");
  });

  test("a look-alike character in a valid text's wording, code or amount never reads as that payment", () => {
    fc.assert(
      fc.property(fc.constantFrom(...LOOKALIKES), fc.nat(), ([from, to], pick) => {
        // Replace one occurrence outside the payer's name ("Lidia Cas*").
        const nameEnd = VALID.indexOf(" te ");
        const spots = [...VALID.matchAll(new RegExp(from.replace("/", "\\/"), "g"))].map((m) => m.index!).filter((i) => i >= nameEnd);
        if (spots.length === 0) return;
        const at = spots[pick % spots.length]!;
        const text = VALID.slice(0, at) + to + VALID.slice(at + 1);
        const r = recognise({ package: YAPE, text });
        wellFormed(r);
        if (r.status === "payment") {
          // Only a change the format does not read (none, here) could leave the same payment.
          expect(r.payment).not.toEqual((recognise({ package: YAPE, text: VALID }) as Extract<Reading, { status: "payment" }>).payment);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a valid text cut, or with a character added or taken out anywhere, never reads another amount or code", () => {
    for (let i = 0; i <= VALID.length; i++) {
      for (const text of [VALID.slice(0, i), VALID.slice(0, i) + "x" + VALID.slice(i), VALID.slice(0, i) + VALID.slice(i + 1)]) {
        const r = recognise({ package: YAPE, text });
        wellFormed(r);
        if (r.status !== "payment") continue;
        // What may still read: the text without its code clause, or the name changed.
        expect(r.payment.amount).toBe(100);
        expect([null, "296"]).toContain(r.payment.security_code);
      }
    }
  });
});
