// How long the recogniser of wallet notifications (contract §16) takes per notification, in process:
// the fixture corpus (real texts and their look-alikes) and adversarial texts (very long, only digits,
// many `S/`, a format repeated, a name at its limit). The goal is at most 1 ms for any text; the
// tests check behaviour only (no timed assertions), this checks the time.
// Run alone: `bun bench/recogniser.ts`.
import corpus from "../test/fixtures/notifications.json";
import { recognise } from "../src/notifications/recogniser";

const VALID = "Lidia Cas* te envió un pago por S/ 1. El cód. de seguridad es: 296";
const ADVERSARIAL = [
  "S/ ".repeat(700),
  "9".repeat(1024),
  `${VALID} `.repeat(15),
  `${"A".repeat(127)}* te envió un pago por S/ 1`,
  `${"A ".repeat(500)}te envió un pago por S/ 1`,
  `${"Ana ".repeat(250)}te plineó S/1 .`,
  `x te envió un pago por S/ ${"1,".repeat(500)}`,
  `${"te envió un pago por ".repeat(48)}S/ 1`,
  "a".repeat(1024),
  "¡".repeat(1024),
];
const PACKAGES = ["com.bcp.innovacxion.yapeapp", "pe.com.interbank.mobilebanking", "com.bbva.nxt_peru", "com.bcp.bank.bcp"];

export interface RecogniserTimes {
  texts: number;
  meanUs: number;
  /** The slowest text's median time over the rounds: what that text costs. */
  slowestMedianUs: number;
  slowest: string;
  /** The single slowest call, garbage collection and scheduling included. */
  maxUs: number;
}

export function recogniserTimes(rounds = 200): RecogniserTimes {
  const inputs = [
    ...(corpus as { package: string; title: string | null; text: string }[]),
    ...ADVERSARIAL.flatMap((text) => PACKAGES.map((p) => ({ package: p, title: null, text }))),
  ];
  for (const n of inputs) recognise(n); // compile the patterns, warm the JIT
  const perText = inputs.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    inputs.forEach((n, i) => {
      const t0 = Bun.nanoseconds();
      recognise(n);
      perText[i]!.push((Bun.nanoseconds() - t0) / 1000);
    });
  }
  const medians = perText.map((xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  const slowestAt = medians.indexOf(Math.max(...medians));
  const text = inputs[slowestAt]!.text;
  const all = perText.flat();
  return {
    texts: inputs.length,
    meanUs: all.reduce((a, x) => a + x, 0) / all.length,
    slowestMedianUs: medians[slowestAt]!,
    slowest: text.length > 60 ? `${text.slice(0, 57)}… (${text.length} chars)` : text,
    maxUs: Math.max(...all),
  };
}

if (import.meta.main) {
  const r = recogniserTimes();
  console.log(
    `recogniser, ${r.texts} texts × 200: mean ${r.meanUs.toFixed(1)} µs; slowest text ${r.slowestMedianUs.toFixed(1)} µs (median; goal ≤ 1000 µs): ${r.slowest}; slowest single call ${r.maxUs.toFixed(1)} µs`,
  );
}
