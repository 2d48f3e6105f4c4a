// The payment event (contract §6): its schema, its validated type and the semantic checks that the
// schema alone cannot express. Shared by POST /device/v1/events and the connector's test payments.
import type { Static } from "@sinclair/typebox";
import { DomainError } from "../errors";
import { Amount, Currency, EpochMs, named, Nullable, T } from "../http/schemas";
import { checkCurrency, invalid, validator } from "../http/validation";

export const PAYMENT_RECEIVED = "payment.received";
/** contract §6: occurred_at may be at most this far in the future… */
export const MAX_FUTURE_MS = 300_000;
/** …and at most this old. */
export const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** Optional text: absent, null or empty all read as "not given" (see parsePaymentEvent). */
const OptText = (maxLength: number, description: string, examples: string[]) =>
  T.Optional(T.String({ maxLength, description: `${description}. \`null\` or \`""\` read as absent.`, examples }));

export const RawNotificationSchema = T.Object(
  {
    package: OptText(1024, "Android package (or iOS bundle id) of the wallet app", ["com.bcp.innovacxion.yapeapp"]),
    title: OptText(1024, "Notification title", ["Yape"]),
    text: OptText(1024, "Notification text", ["Yanina Man* te envió un pago por S/ 25. El cód. de seguridad es: 482"]),
  },
  { description: "The notification as the phone saw it, for a person to read; never used for matching" },
);

/** contract §6: the phone's id of an event, of either kind. */
export const EventId = () =>
  T.String({
    pattern: "^[A-Za-z0-9._:-]{1,64}$",
    description: "The phone's id for this event, 1–64 of `[A-Za-z0-9._:-]`; a UUID is recommended. Repeat it in `Idempotency-Key`.",
    examples: ["0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b"],
  });

export const PaymentEventSchema = T.Object(
  {
    event_id: EventId(),
    // `const` is for the document: TypeBox does not check it on a string, so other kinds reach
    // checkPaymentEvent and get their own code (contract §6).
    kind: T.String({ const: PAYMENT_RECEIVED, description: "Only `payment.received`; other kinds are `400 unsupported_event_kind`", examples: [PAYMENT_RECEIVED] }),
    occurred_at: EpochMs("When the phone saw the notification (epoch ms). At most 300 000 ms ahead of server time; older than 30 days is `400 event_too_old`"),
    source: T.String({
      pattern: "^[a-z0-9_-]{1,32}$",
      description: "The wallet, 1–32 of `[a-z0-9_-]`: `yape`, `plin`, `bcp`, `interbank`, `bbva`, `scotiabank`, …",
      examples: ["yape"],
    }),
    amount: Amount(),
    currency: Currency(),
    payer_name: OptText(128, "As the notification shows it, possibly cut short with `*`", ["Yanina Man*"]),
    security_code: OptText(16, "The short code the wallet shows with the payment (Yape's three digits)", ["482"]),
    reference: OptText(64, "Operation number, when the wallet shows one", ["00123456"]),
    raw: T.Optional(RawNotificationSchema),
  },
  { description: "A payment the phone saw. Unknown fields are ignored." },
);

export type PaymentEventInput = Static<typeof PaymentEventSchema>;

/** A validated event: optional fields are either a non-empty string or absent. */
export interface PaymentEvent {
  event_id: string;
  kind: string;
  occurred_at: number;
  source: string;
  amount: number;
  currency: string;
  payer_name?: string;
  security_code?: string;
  reference?: string;
  raw?: { package?: string; title?: string; text?: string };
}

const check = validator(PaymentEventSchema);

/** Drops empty optional values so that `{"reference":""}` and absence mean the same. */
export function normalizePaymentEvent(input: PaymentEventInput): PaymentEvent {
  const text = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v);
  const out: PaymentEvent = {
    event_id: input.event_id,
    kind: input.kind,
    occurred_at: input.occurred_at,
    source: input.source,
    amount: input.amount,
    currency: input.currency,
  };
  const payer = text(input.payer_name);
  const code = text(input.security_code);
  const ref = text(input.reference);
  if (payer !== undefined) out.payer_name = payer;
  if (code !== undefined) out.security_code = code;
  if (ref !== undefined) out.reference = ref;
  if (input.raw) {
    const raw: NonNullable<PaymentEvent["raw"]> = {};
    for (const k of ["package", "title", "text"] as const) {
      const v = text(input.raw[k]);
      if (v !== undefined) raw[k] = v;
    }
    if (Object.keys(raw).length > 0) out.raw = raw;
  }
  return out;
}

/** Schema validation (400 invalid_request with JSON-pointer fields), unknown fields dropped. */
export function parsePaymentEvent(body: unknown): PaymentEvent {
  return normalizePaymentEvent(check(withoutNulls(body, 2)));
}

/**
 * Phones often send `null` for a field they do not have: it reads as absent (validated as missing
 * where the field is required). `depth` 2 covers the top level and `raw`.
 */
export function withoutNulls(value: unknown, depth: number): unknown {
  if (depth === 0 || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v, depth - 1);
  return out;
}

/** contract §6: the checks beyond the schema, in this order: kind, currency, occurred_at. */
export function checkPaymentEvent(body: PaymentEvent, now: number): void {
  if (body.kind !== PAYMENT_RECEIVED) {
    throw new DomainError("unsupported_event_kind", `Only ${PAYMENT_RECEIVED} is supported, not ${JSON.stringify(body.kind)}`, {
      errors: [{ field: "/kind", message: `must be ${PAYMENT_RECEIVED}` }],
    });
  }
  checkCurrency(body.currency);
  checkOccurredAt(body.occurred_at, now);
}

/** contract §6: when the phone saw it, as any event of either kind must say. */
export function checkOccurredAt(occurredAt: number, now: number): void {
  if (occurredAt > now + MAX_FUTURE_MS) {
    throw invalid([{ field: "/occurred_at", message: `is more than ${MAX_FUTURE_MS} ms ahead of server time ${now}` }]);
  }
  if (occurredAt < now - MAX_AGE_MS) {
    throw new DomainError("event_too_old", "occurred_at is more than 30 days ago", {
      errors: [{ field: "/occurred_at", message: "is more than 30 days ago" }],
    });
  }
}

/** JSON with keys sorted at every level: the same body always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** The answer of a first receipt (contract §6), stored and returned again on every replay. */
export interface EventReceipt {
  event_id: string;
  status: "accepted";
  received_at: number;
  match: { status: "matched" | "unmatched" | "ambiguous" | "duplicate"; order_id: string | null };
}

export const EventReceiptSchema = T.Object(
  {
    event_id: T.String(),
    status: T.Literal("accepted"),
    received_at: EpochMs("When the box stored the event"),
    match: T.Object({
      status: T.Union([T.Literal("matched"), T.Literal("unmatched"), T.Literal("ambiguous"), T.Literal("duplicate")], {
        description: "`duplicate`: another phone of the shop already reported this payment; it never matches an order",
      }),
      order_id: Nullable(T.String()),
    }),
  },
  { description: "The first answer; a replay of the same event returns it again, byte for byte, with `Idempotent-Replayed: true`" },
);

named({ RawNotification: RawNotificationSchema, PaymentEvent: PaymentEventSchema, EventReceipt: EventReceiptSchema });
