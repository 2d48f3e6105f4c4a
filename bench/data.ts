// Made-up but shop-like data for the bench: a seeded PRNG, Peruvian names, wallet sources, order and
// counter-sale amounts. Deterministic for a given seed, so the cached database and the signed load
// are the same from one bench run to the next.

/** mulberry32: small, fast, good enough to spread bench data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;

export const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Standard normal (Box–Muller). */
export function normal(r: Rand): number {
  const u = 1 - r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** n random hex digits, eight per PRNG draw. */
export const hex = (r: Rand, n: number): string => {
  let s = "";
  while (s.length < n) s += Math.floor(r() * 4294967296).toString(16).padStart(8, "0");
  return s.slice(0, n);
};

/** A version-4 UUID from the PRNG: phones use random ids, so the bench does too (random index keys). */
export function uuid(r: Rand): string {
  const h = hex(r, 32);
  const variant = "89ab"[Math.floor(r() * 4)];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const digits = (r: Rand, n: number): string => {
  let s = "";
  for (let i = 0; i < n; i++) s += String(Math.floor(r() * 10));
  return s;
};

const FIRST = [
  "Yanina", "Luis", "María", "José", "Rosa", "Carlos", "Ana", "Jorge", "Carmen", "Juan", "Lucía", "Miguel", "Elena", "Pedro",
  "Sofía", "Víctor", "Patricia", "César", "Gabriela", "Raúl", "Milagros", "Walter", "Flor", "Hugo", "Diana", "Óscar", "Karina",
  "Renzo", "Fiorella", "Edwin", "Jessica", "Alonso", "Maribel", "Cristian", "Roxana", "Gustavo", "Liliana", "Percy", "Sandra",
  "Elmer", "Nelly", "Franco", "Giuliana", "Wilmer", "Yesenia", "Aldo", "Lourdes", "Manuel", "Teresa", "Julio", "Andrea",
];
const LAST = [
  "Manrique", "Quispe", "Flores", "Rodríguez", "Huamán", "Mamani", "García", "Chávez", "Sánchez", "Ramírez", "Torres", "Vargas",
  "Castillo", "Rojas", "Mendoza", "Gutiérrez", "Espinoza", "Díaz", "Vásquez", "Ramos", "Cruz", "Salazar", "Paredes", "Romero",
  "Córdova", "Aguilar", "Cárdenas", "Palomino", "Ticona", "Condori", "Ccahuana", "Apaza", "Nuñez", "López", "Pérez", "Alvarado",
  "Zevallos", "Benavides", "Yupanqui", "Villanueva", "Medina", "Herrera", "Campos", "Silva", "Fernández", "Soto", "Ore",
];

/** "Yanina Manrique López": what a shop stores as the customer's name. */
export const fullName = (r: Rand): string => `${pick(r, FIRST)} ${pick(r, LAST)} ${pick(r, LAST)}`;

/** The name as a wallet notification shows it (contract §10: Yape cuts it with `*`, banks shout it). */
export function payerNameAs(r: Rand, source: string, full: string): string {
  const [first, last] = full.split(" ") as [string, string];
  if (source === "yape") return `${first} ${last.slice(0, Math.min(last.length, int(r, 3, 5)))}*`;
  if (source === "plin") return `${first} ${last}`;
  return `${first} ${last}`.toUpperCase();
}

/** Wallets, weighted roughly as a Peruvian shop sees them. */
const SOURCES: [string, number][] = [
  ["yape", 0.55],
  ["plin", 0.2],
  ["bcp", 0.1],
  ["interbank", 0.06],
  ["bbva", 0.05],
  ["scotiabank", 0.04],
];
export function source(r: Rand): string {
  let x = r();
  for (const [s, w] of SOURCES) if ((x -= w) < 0) return s;
  return "yape";
}

const PACKAGES: Record<string, string> = {
  yape: "com.bcp.innovacxion.yapeapp",
  plin: "pe.com.interbank.mobilebanking",
  bcp: "com.bcp.bank.bcp",
  interbank: "pe.com.interbank.mobilebanking",
  bbva: "com.bbva.nxt_peru",
  scotiabank: "pe.com.scotiabank.blpm.android.client",
};

/** What a phone reads off a notification besides amount and name. */
export function walletExtras(r: Rand, src: string): { securityCode: string | null; reference: string | null } {
  if (src === "yape") return { securityCode: r() < 0.8 ? digits(r, 3) : null, reference: null };
  if (src === "plin") return { securityCode: null, reference: r() < 0.3 ? digits(r, 8) : null };
  return { securityCode: null, reference: digits(r, int(r, 8, 10)) };
}

export function rawNotification(src: string, payer: string, amount: number, code: string | null): { package: string; title: string; text: string } {
  const soles = (amount / 100).toFixed(2);
  return {
    package: PACKAGES[src] ?? "com.example.wallet",
    title: src === "yape" ? "Yape" : src === "plin" ? "Plin" : "Transferencia recibida",
    text: `${payer} te envió un pago por S/ ${soles}.${code ? ` El cód. de seguridad es: ${code}` : ""}`,
  };
}

/** A product price in cents: an online shop's catalogue, from S/ 19.90 up to thousands, priced x.90, x.00, x.50. */
function price(r: Rand): number {
  const whole = Math.min(49_999, 19 + Math.floor(Math.exp(Math.log(80) + 1.0 * normal(r))));
  const x = r();
  return whole * 100 + (x < 0.6 ? 90 : x < 0.75 ? 0 : x < 0.85 ? 50 : int(r, 1, 99));
}

/** A catalogue: the prices an online shop sells at; orders are sums of these. */
export function catalogue(r: Rand, n: number): number[] {
  return Array.from({ length: n }, () => price(r));
}

/** An order total: one to four items (some more popular than others) plus shipping most of the time. */
export function orderAmount(r: Rand, cat: readonly number[]): number {
  const items = r() < 0.45 ? 1 : r() < 0.6 ? 2 : r() < 0.7 ? 3 : 4;
  let total = 0;
  for (let i = 0; i < items; i++) total += cat[Math.floor(Math.pow(r(), 1.2) * cat.length)]! * (r() < 0.15 ? 2 : 1);
  const ship = r();
  total += ship < 0.3 ? 0 : ship < 0.6 ? 800 : ship < 0.85 ? 1000 : 1500;
  return Math.min(total, 100_000_000);
}

/** A counter sale paid by phone in a bodega: small, mostly round amounts (S/ 3.50, S/ 6, S/ 12). */
export function counterAmount(r: Rand): number {
  const soles = Math.exp(Math.log(6) + 0.8 * normal(r));
  const x = r();
  if (x < 0.55) return Math.max(1, Math.round(soles)) * 100;
  if (x < 0.8) return Math.max(1, Math.round(soles * 2)) * 50;
  return Math.max(100, Math.round(soles * 100));
}
