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
  p99Us: number;
  maxUs: number;
  slowest: string;
}

export function recogniserTimes(rounds = 200): RecogniserTimes {
  const inputs = [
    ...(corpus as { package: string; title: string | null; text: string }[]),
    ...ADVERSARIAL.flatMap((text) => PACKAGES.map((p) => ({ package: p, title: null, text }))),
  ];
  for (const n of inputs) recognise(n); // compile the patterns, warm the JIT
  const samples: { us: number; text: string }[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const n of inputs) {
      const t0 = Bun.nanoseconds();
      recognise(n);
      samples.push({ us: (Bun.nanoseconds() - t0) / 1000, text: n.text });
    }
  }
  samples.sort((a, b) => a.us - b.us);
  const worst = samples[samples.length - 1]!;
  return {
    texts: inputs.length,
    meanUs: samples.reduce((a, s) => a + s.us, 0) / samples.length,
    p99Us: samples[Math.floor(samples.length * 0.99)]!.us,
    maxUs: worst.us,
    slowest: worst.text.length > 60 ? `${worst.text.slice(0, 57)}… (${worst.text.length} chars)` : worst.text,
  };
}

if (import.meta.main) {
  const r = recogniserTimes();
  console.log(
    `recogniser, ${r.texts} texts × 200: mean ${r.meanUs.toFixed(1)} µs, p99 ${r.p99Us.toFixed(1)} µs, max ${r.maxUs.toFixed(1)} µs (goal ≤ 1000 µs); slowest: ${r.slowest}`,
  );
}
