// The second kind of event (contract §16): a wallet notification for the box to read. Its schema,
// validated type, answer, the connector's view of stored notifications, and examples of each wallet.
import { canonicalJson, EventId, withoutNulls, type EventReceipt } from "../payments/model";
import { Amount, Currency, EpochMs, named, OrNull, T } from "../http/schemas";
import { validator } from "../http/validation";
import type { NotificationStatus, ReadPayment, Reading } from "./recogniser";
import type { Store } from "../store/db";
import { secretHash } from "../store/secret-hash";

export const NOTIFICATION_POSTED = "notification.posted";
export const NOTIFICATION_STATUSES = ["payment", "not_a_payment", "unrecognized"] as const satisfies readonly NotificationStatus[];


export const NotificationRawSchema = T.Object(
  {
    package: T.String({ minLength: 1, maxLength: 256, description: "Android package of the app that posted it", examples: ["com.bcp.innovacxion.yapeapp"] }),
    title: T.Optional(T.String({ maxLength: 1024, description: "The notification's title (`null` or absent when it has none)", examples: ["Confirmación de Pago"] })),
    text: T.String({
      minLength: 1,
      maxLength: 1024,
      description: "The notification's text as the phone saw it, unchanged (the box reads it)",
      examples: ["Yanina Man* te envió un pago por S/ 56.7. El cód. de seguridad es: 666"],
    }),
  },
  { description: "The notification as Android gave it to the app" },
);

export const NotificationEventSchema = T.Object(
  {
    event_id: EventId(),
    kind: T.Literal(NOTIFICATION_POSTED, { description: "`notification.posted`: the box reads the notification" }),
    occurred_at: EpochMs("When the phone saw the notification (epoch ms). At most 300 000 ms ahead of server time; older than 30 days is `400 event_too_old`"),
    raw: NotificationRawSchema,
  },
  { description: "A wallet notification for the box to read. Other fields of a payment event are ignored for this kind; unknown fields too." },
);

/** A validated notification event: `title` absent when empty. */
export interface NotificationEvent {
  event_id: string;
  kind: typeof NOTIFICATION_POSTED;
  occurred_at: number;
  raw: { package: string; title?: string; text: string };
}

const check = validator(NotificationEventSchema);

/** Schema validation (400 invalid_request), unknown fields dropped, `null` and `""` titles absent. */
export function parseNotificationEvent(body: unknown): NotificationEvent {
  const e = check(withoutNulls(body, 2));
  const raw: NotificationEvent["raw"] = { package: e.raw.package, text: e.raw.text };
  if (e.raw.title !== undefined && e.raw.title.trim() !== "") raw.title = e.raw.title;
  return { event_id: e.event_id, kind: NOTIFICATION_POSTED, occurred_at: e.occurred_at, raw };
}

/**
 * What tells a replay from a reused key: the fields this kind reads, nothing else. Keyed with the
 * master key (contract §20): the hash stays when a not_a_payment's text is dropped, and a plain
 * SHA-256 of a short text (a login code) could be searched back from the database alone.
 */
export const notificationHashOf = (store: Store, body: NotificationEvent): string => secretHash(store, canonicalJson(body));

/** The answer of a first receipt (contract §16), kept for replays. */
export interface NotificationReceipt {
  event_id: string;
  status: "accepted";
  received_at: number;
  notification: { status: NotificationStatus; format: string | null };
  match: EventReceipt["match"] | null;
  payment: ReadPayment | null;
}

export function receiptOf(event: NotificationEvent, reading: Reading, now: number, match: EventReceipt["match"] | null): NotificationReceipt {
  return {
    event_id: event.event_id,
    status: "accepted",
    received_at: now,
    notification: { status: reading.status, format: reading.format },
    match,
    payment: reading.status === "payment" ? reading.payment : null,
  };
}

const StatusSchema = T.Union(
  NOTIFICATION_STATUSES.map((s) => T.Literal(s)),
  {
    description:
      "`payment`: money received, stored and matched as a payment event. `not_a_payment`: a wallet's notification that is not money received (a payment sent, a promotion, a login code, a collection request, a card charge); its title and text are not kept. `unrecognized`: anything else, kept with its text and read again when the box learns its format",
  },
);
const FormatSchema = OrNull(T.String({ examples: ["yape.payment_received"] }), "The format the box recognised, e.g. `yape.payment_received`, `bbva.plin_received`, `yape.promotion`; for an unrecognised one, `android.redacted` when Android hid the text from the app, else null");

export const ReadPaymentSchema = T.Object(
  {
    source: T.String({ description: "The wallet: `yape`, `plin` or `bbva` (BBVA's QR charge)", examples: ["yape"] }),
    amount: Amount(),
    currency: Currency(),
    payer_name: OrNull(T.String({ maxLength: 128 }), "The name as the notification shows it (`*` kept, a `Yape!` prefix dropped); null when it shows none"),
    security_code: OrNull(T.String({ maxLength: 16 }), "Yape's three-digit security code, as a string (`021`); null when the notification shows none"),
    reference: T.Null({ description: "No wallet notification shows an operation number: always null" }),
  },
  { description: "The payment the box read from the notification" },
);

export const NotificationReceiptSchema = T.Object(
  {
    event_id: T.String({ description: "The event's id, as sent" }),
    status: T.Literal("accepted", { description: "Always `accepted`: the notification is stored" }),
    received_at: EpochMs("When the box stored it"),
    notification: T.Object(
      { status: StatusSchema, format: FormatSchema },
      { description: "What the box read" },
    ),
    match: OrNull(
      T.Object({
        status: T.Union([T.Literal("matched"), T.Literal("unmatched"), T.Literal("ambiguous"), T.Literal("duplicate")], {
          description: "As for a payment event: `duplicate` when another phone of the shop already reported this payment",
        }),
        order_id: OrNull(T.String(), "The order it paid; null unless matched"),
      }),
      "For a payment, what matching decided (as for a payment event); null otherwise",
    ),
    payment: OrNull(ReadPaymentSchema, "For a payment, what the box read; null otherwise"),
  },
  { description: "The first answer; a replay of the same event returns it again, byte for byte, with `Idempotent-Replayed: true`" },
);

export const NotificationViewSchema = T.Object(
  {
    event_id: T.String({ description: "The id the phone gave the notification event" }),
    device_id: T.String({ description: "The phone that sent it (`dev_…`)" }),
    package: T.String({ description: "Android package of the app that posted it" }),
    title: OrNull(T.String(), "The notification's title; null when not kept (`not_a_payment`) or when it had none"),
    text: OrNull(T.String(), "The notification's text; null when not kept (`not_a_payment`)"),
    status: StatusSchema,
    format: FormatSchema,
    occurred_at: EpochMs("When the phone saw it"),
    received_at: EpochMs("When the box stored it"),
  },
  { description: "A notification a phone sent for the box to read" },
);

export const NotificationsPageSchema = T.Object({
  data: T.Array(NotificationViewSchema, { description: "The notifications of this page, oldest first" }),
  next_cursor: T.String({ description: "Pass as `after` for the next page" }),
  has_more: T.Boolean({ description: "true when more notifications wait after this page" }),
});

export const NotificationCountsSchema = T.Object(
  {
    payment: T.Integer({ minimum: 0, description: "Notifications read as payments in the last 7 days" }),
    not_a_payment: T.Integer({ minimum: 0, description: "Wallet notifications that were not money received, last 7 days" }),
    unrecognized: T.Integer({
      minimum: 0,
      description: "Notifications the box could not read in the last 7 days (Android's hidden texts included): see GET /connector/v1/notifications?status=unrecognized",
    }),
    last_unrecognized_at: OrNull(EpochMs(), "When the box received the newest unrecognised one of the last 7 days; null when none"),
  },
  { description: "What this phone's notifications were, over the last 7 days (by the box's receipt time)" },
);

named({
  NotificationEvent: NotificationEventSchema,
  NotificationRaw: NotificationRawSchema,
  NotificationReceipt: NotificationReceiptSchema,
  ReadPayment: ReadPaymentSchema,
  Notification: NotificationViewSchema,
  NotificationsPage: NotificationsPageSchema,
  NotificationCounts: NotificationCountsSchema,
});
