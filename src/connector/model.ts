// Schemas of the connector surface (contract §9–§12): request bodies, the Order, Match, event and
// device records, and the examples shown in /docs. Validation uses these same schemas
// (src/http/validation.ts), so the documentation is the check.
import { NotificationCountsSchema } from "../notifications/model";
import { Amount, Currency, EpochMs, Int, named, Nullable, T } from "../http/schemas";
import { EXAMPLE_SCOPE, exampleCursors } from "./cursor";

export const MAX_ORDERS_PER_SYNC = 500;
export const METADATA_MAX_BYTES = 4096;
export const DEFAULT_ORDER_TTL_MS = 24 * 3600 * 1000;
export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 500;

const EXAMPLE_NOW = 1795262400000;

export const OrderIdSchema = () =>
  T.String({
    minLength: 1,
    maxLength: 64,
    pattern: "^[A-Za-z0-9._:/#-]{1,64}$",
    description: "The shop's own order id: 1–64 of `A-Z a-z 0-9 . _ : / # -`, but not `.` or `..` (no URL can name them)",
    examples: ["A-1042"],
  });

export const OrderInputSchema = T.Object({
  id: OrderIdSchema(),
  amount: Amount(),
  currency: Currency(),
  status: T.Optional(
    T.Union([T.Literal("pending"), T.Literal("cancelled")], {
      description: "`pending` (default) or `cancelled`. A matched order cannot be cancelled.",
    }),
  ),
  created_at: T.Optional(EpochMs("When the order was created; default: now. Payments from 120 s before it count.")),
  expires_at: T.Optional(EpochMs("When the order stops accepting payment; default: created_at + 24 h. Must be after created_at.")),
  customer_name: T.Optional(Nullable(T.String({ maxLength: 128, description: "Used to tell apart orders of the same amount", examples: ["Yanina Manrique López"] }))),
  security_code: T.Optional(
    Nullable(T.String({ maxLength: 16, description: "The code the customer read off their payment (Yape's three digits), where the shop asks for it", examples: ["482"] })),
  ),
  unique_amount: T.Optional(
    T.Boolean({ description: "Ask for a unique `expected_amount` (amount + 0–99 cents) so that this order can be told apart from others of the same amount" }),
  ),
  metadata: T.Optional(
    Nullable(T.Record(T.String(), T.Unknown(), { description: "Any JSON object of at most 4 KiB, stored and echoed", examples: [{ table: 7 }] })),
  ),
});

export const SyncOrdersBodySchema = T.Object({
  orders: T.Array(OrderInputSchema, { maxItems: MAX_ORDERS_PER_SYNC, description: "Up to 500 orders; all are stored or none" }),
});

export const MatchSchema = T.Object(
  {
    id: T.String({ description: "`mat_…`; deduplicate by it (delivery is at least once)", examples: ["mat_7Hq2LmX9dK4pR1sT0vWz"] }),
    cursor: T.String({ description: "Opaque position of this match in the feed" }),
    order_id: T.String(),
    event_id: T.String(),
    device_id: Nullable(T.String({ description: "The phone that reported the payment; null for a test payment" })),
    amount: Int({ description: "Cents, as paid" }),
    currency: T.String(),
    source: T.String({ examples: ["yape"] }),
    payer_name: Nullable(T.String()),
    security_code: Nullable(T.String()),
    reference: Nullable(T.String()),
    occurred_at: EpochMs("When the phone saw the payment"),
    matched_at: EpochMs("When the match was made"),
    method: T.Union([T.Literal("auto"), T.Literal("manual")]),
  },
  { description: "A payment matched to an order" },
);

/** An order's status as it reads (contract §9, §10): a pending order past `expires_at` reads `expired`. */
export const ORDER_STATUSES = ["pending", "matched", "cancelled", "expired"] as const;

export const OrderSchema = T.Object(
  {
    id: T.String(),
    amount: Int({ description: "Cents, as the shop sent it" }),
    expected_amount: Int({ description: "What the customer must pay: `amount`, or `amount + k` with `unique_amount`" }),
    currency: T.String(),
    status: T.Union(ORDER_STATUSES.map((s) => T.Literal(s)), {
      description: "A pending order past `expires_at` reads as `expired` and no longer matches",
    }),
    created_at: EpochMs(),
    expires_at: EpochMs(),
    customer_name: Nullable(T.String()),
    security_code: Nullable(T.String()),
    unique_amount: T.Boolean(),
    metadata: Nullable(T.Record(T.String(), T.Unknown())),
    match: Nullable(MatchSchema),
    updated_at: EpochMs("Last change to the order (an identical re-sync does not change it)"),
  },
  { description: "An order as stored" },
);

export const SyncOrdersResponseSchema = T.Object({ orders: T.Array(OrderSchema, { description: "In input order" }) });

export const OrdersPageSchema = T.Object({
  data: T.Array(OrderSchema, { description: "The orders of this page, newest first: by `created_at`, then by `id`, both descending" }),
  next_cursor: T.String({ description: "Pass as `after` for the next page, of older orders" }),
  has_more: T.Boolean({ description: "true when older orders of these statuses follow this page" }),
});

/** contract §19: how many orders a payment's candidates list at most (see CANDIDATES_DOC). */
export const CANDIDATES_MAX = 50;
/** …and how many of them of the payment's amount and window, at most (in practice there are few). */
export const SAME_AMOUNT_CANDIDATES_MAX = 500;

export const FeedResponseSchema = T.Object({
  data: T.Array(MatchSchema),
  next_cursor: T.String({ description: "Pass as `after` for the next page, and as `through` to acknowledge" }),
  has_more: T.Boolean(),
});

export const AckBodySchema = T.Object({ through: T.String({ description: "A cursor from the feed" }) });
export const AckResponseSchema = T.Object({
  acknowledged_through: T.String({ description: "The newest acknowledged cursor (an older `through` changes nothing)" }),
});

export const ManualMatchBodySchema = T.Object({
  order_id: OrderIdSchema(),
  event_id: T.String({ minLength: 1, maxLength: 64, examples: ["0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b"] }),
  device_id: T.Optional(
    T.String({ minLength: 1, maxLength: 64, description: "Only needed when two phones sent events with the same `event_id`" }),
  ),
});

export const MATCH_STATUSES = ["unmatched", "ambiguous", "matched", "duplicate"] as const;

export const EventViewSchema = T.Object({
  event_id: T.String(),
  device_id: Nullable(T.String()),
  source: T.String(),
  amount: Int(),
  currency: T.String(),
  payer_name: Nullable(T.String()),
  security_code: Nullable(T.String()),
  reference: Nullable(T.String()),
  occurred_at: EpochMs(),
  received_at: EpochMs(),
  match_status: T.Union(MATCH_STATUSES.map((s) => T.Literal(s))),
  order_id: Nullable(T.String()),
  duplicate_of: Nullable(T.String({ description: "For a duplicate: the event_id of the first report of the payment" })),
});

/** What the candidates of a payment are, in the document and in the code's comments alike. */
export const CANDIDATES_DOC = `For an \`unmatched\` or \`ambiguous\` payment: the pending and expired orders a person could give it to (\`POST /connector/v1/matches\`), in two groups.
1. The orders whose \`expected_amount\` is the payment's \`amount\` and whose window holds its \`occurred_at\` (\`created_at\` − 120 000 ≤ \`occurred_at\` ≤ \`expires_at\`): all of them (at most ${SAME_AMOUNT_CANDIDATES_MAX}), the one created closest to \`occurred_at\` first (then the newer, then by \`id\`).
2. Then the other pending and expired orders, newest first (by \`created_at\`, then \`id\`), until the list holds ${CANDIDATES_MAX} orders.

\`[]\` for a \`matched\` or \`duplicate\` payment. Cancelled and matched orders are never candidates.`;

export const PaymentWithCandidatesSchema = T.Object(
  {
    ...EventViewSchema.properties,
    candidates: T.Array(OrderSchema, { description: CANDIDATES_DOC }),
  },
  { description: "A payment as the events view shows it, with the orders a person could give it to" },
);

export const EventsPageSchema = T.Object({
  data: T.Array(EventViewSchema),
  next_cursor: T.String(),
  has_more: T.Boolean(),
});

export const HealthSchema = T.Object(
  {
    battery_level: T.Optional(Int({ minimum: 0, maximum: 100 })),
    charging: T.Optional(T.Boolean()),
    notification_access: T.Optional(T.Boolean()),
    listener_connected: T.Optional(T.Boolean()),
    network: T.Optional(T.String()),
    app_version: T.Optional(T.String()),
    os_version: T.Optional(T.String()),
    queue_depth: T.Optional(Int({ minimum: 0 })),
    last_notification_at: T.Optional(EpochMs()),
    reported_at: T.Optional(EpochMs("Signed timestamp of the heartbeat that carried this report")),
  },
  { description: "The latest heartbeat's fields; `{}` before the first heartbeat" },
);

export const DeviceViewSchema = T.Object({
  device_id: T.String(),
  label: T.String(),
  platform: T.Union([T.Literal("android"), T.Literal("ios")]),
  app_version: T.String(),
  os_version: T.String(),
  status: T.Union([T.Literal("active"), T.Literal("revoked")]),
  online: T.Boolean({ description: "An active device whose newest signed heartbeat is within 3 × 60 000 ms of now" }),
  last_seen_at: Nullable(EpochMs()),
  last_heartbeat_at: Nullable(EpochMs("Signed timestamp of the newest heartbeat")),
  health: HealthSchema,
  notifications: NotificationCountsSchema,
});

export const DevicesResponseSchema = T.Object({ data: T.Array(DeviceViewSchema) });

// ---- examples a developer can paste

export const EXAMPLE_SYNC = {
  orders: [
    { id: "A-1042", amount: 2500, currency: "PEN", customer_name: "Yanina Manrique López", metadata: { table: 7 } },
    // No created_at or expires_at: the defaults (now, now + 24 h) keep the example valid whenever it is pasted.
    { id: "A-1043", amount: 2500, currency: "PEN", unique_amount: true },
    { id: "A-0999", amount: 1800, currency: "PEN", status: "cancelled" },
  ],
};

export const EXAMPLE_MATCH = {
  id: "mat_7Hq2LmX9dK4pR1sT0vWz",
  cursor: exampleCursors.encode("match", EXAMPLE_SCOPE, 1),
  order_id: "A-1042",
  event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b",
  device_id: "dev_3kR8sT1vWz7Hq2LmX9dK",
  amount: 2500,
  currency: "PEN",
  source: "yape",
  payer_name: "Yanina Man*",
  security_code: "482",
  reference: null,
  occurred_at: EXAMPLE_NOW - 5000,
  matched_at: EXAMPLE_NOW,
  method: "auto",
};

export const EXAMPLE_ORDER = {
  id: "A-1042",
  amount: 2500,
  expected_amount: 2500,
  currency: "PEN",
  status: "matched",
  created_at: EXAMPLE_NOW - 60_000,
  expires_at: EXAMPLE_NOW - 60_000 + DEFAULT_ORDER_TTL_MS,
  customer_name: "Yanina Manrique López",
  security_code: null,
  unique_amount: false,
  metadata: { table: 7 },
  match: EXAMPLE_MATCH,
  updated_at: EXAMPLE_NOW,
};

export const EXAMPLE_PENDING_ORDER = {
  ...EXAMPLE_ORDER,
  id: "A-1043",
  expected_amount: 2501,
  status: "pending",
  customer_name: null,
  unique_amount: true,
  metadata: null,
  match: null,
  expires_at: EXAMPLE_NOW + 3600_000,
  updated_at: EXAMPLE_NOW - 60_000,
};

export const EXAMPLE_EVENT_VIEW = {
  event_id: "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  device_id: "dev_3kR8sT1vWz7Hq2LmX9dK",
  source: "plin",
  amount: 4000,
  currency: "PEN",
  payer_name: "Luis Q*",
  security_code: null,
  reference: "00451234",
  occurred_at: EXAMPLE_NOW - 120_000,
  received_at: EXAMPLE_NOW - 118_000,
  match_status: "ambiguous",
  order_id: null,
  duplicate_of: null,
};

/** The payment above with its candidates: two orders of its amount it could pay (names that both fit), then others. */
export const EXAMPLE_PAYMENT_WITH_CANDIDATES = {
  ...EXAMPLE_EVENT_VIEW,
  candidates: [
    {
      ...EXAMPLE_PENDING_ORDER,
      id: "A-1050",
      amount: 4000,
      expected_amount: 4000,
      unique_amount: false,
      customer_name: "Luis Quispe",
      created_at: EXAMPLE_NOW - 300_000,
      expires_at: EXAMPLE_NOW - 300_000 + DEFAULT_ORDER_TTL_MS,
      updated_at: EXAMPLE_NOW - 300_000,
    },
    {
      ...EXAMPLE_PENDING_ORDER,
      id: "A-1047",
      amount: 4000,
      expected_amount: 4000,
      unique_amount: false,
      customer_name: "Luisa Quiroz",
      created_at: EXAMPLE_NOW - 900_000,
      expires_at: EXAMPLE_NOW - 900_000 + DEFAULT_ORDER_TTL_MS,
      updated_at: EXAMPLE_NOW - 900_000,
    },
    { ...EXAMPLE_PENDING_ORDER, status: "expired", id: "A-1049", expires_at: EXAMPLE_NOW - 30_000, created_at: EXAMPLE_NOW - 930_000, updated_at: EXAMPLE_NOW - 930_000 },
  ],
};

export const EXAMPLE_DEVICE = {
  device_id: "dev_3kR8sT1vWz7Hq2LmX9dK",
  label: "Caja 1",
  platform: "android",
  app_version: "1.4.0",
  os_version: "14",
  status: "active",
  online: true,
  last_seen_at: EXAMPLE_NOW - 20_000,
  last_heartbeat_at: EXAMPLE_NOW - 20_000,
  health: { battery_level: 82, charging: true, notification_access: true, listener_connected: true, network: "wifi", queue_depth: 0 },
  notifications: { payment: 41, not_a_payment: 12, unrecognized: 1, last_unrecognized_at: EXAMPLE_NOW - 3_600_000 },
};

named({
  OrderInput: OrderInputSchema,
  OrderSyncRequest: SyncOrdersBodySchema,
  Order: OrderSchema,
  OrderSyncResponse: SyncOrdersResponseSchema,
  Match: MatchSchema,
  MatchesPage: FeedResponseSchema,
  AckRequest: AckBodySchema,
  AckResponse: AckResponseSchema,
  ManualMatchRequest: ManualMatchBodySchema,
  OrdersPage: OrdersPageSchema,
  Payment: EventViewSchema,
  PaymentWithCandidates: PaymentWithCandidatesSchema,
  PaymentsPage: EventsPageSchema,
  DeviceHealth: HealthSchema,
  Device: DeviceViewSchema,
  DevicesPage: DevicesResponseSchema,
});
