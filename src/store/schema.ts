// The database schema. drizzle-kit turns changes here into SQL files under migrations/
// (`bun run db:generate`); src/store/migrations.ts embeds them into the binary.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { NotificationStatus } from "../notifications/recogniser";

export type Environment = "live" | "test";

/** A merchant. The license lives on the tenant row (contract §3: one license per tenant). */
export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
  licenseStatus: text("license_status").$type<"active" | "suspended">().notNull().default("active"),
  licensePlan: text("license_plan").notNull().default("standard"),
  licenseMaxDevices: integer("license_max_devices").notNull().default(5),
  licenseExpiresAt: integer("license_expires_at"),
  updatedAt: integer("updated_at").notNull(),
});

/** Connector keys. Only an HMAC of the key under the master key is stored (contract §3, §20; store/secret-hash.ts). */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    keyHash: text("key_hash").notNull(),
    prefix: text("prefix").notNull(),
    last4: text("last4").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.keyHash), index("api_keys_tenant_idx").on(t.tenantId)],
);

/** News shown to the tenant's phones in heartbeat answers. `seq` orders them; `id` is public. */
export const news = sqliteTable(
  "news",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    level: text("level").$type<"info" | "warning" | "critical">().notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    publishedAt: integer("published_at").notNull(),
  },
  (t) => [uniqueIndex("news_id_uq").on(t.id), index("news_tenant_idx").on(t.tenantId, t.seq)],
);

/** One-time activation codes. Only an HMAC of the normalised code under the master key is stored (contract §4, §20). */
export const activationCodes = sqliteTable(
  "activation_codes",
  {
    id: text("id").primaryKey(),
    codeHash: text("code_hash").notNull(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    deviceId: text("device_id"),
  },
  (t) => [uniqueIndex("activation_codes_hash_uq").on(t.codeHash)],
);

/** Linked phones. The secret is AES-256-GCM encrypted under the data dir's master key. */
export const devices = sqliteTable(
  "devices",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    label: text("label").notNull(),
    platform: text("platform").$type<"android" | "ios">().notNull(),
    appVersion: text("app_version").notNull(),
    osVersion: text("os_version").notNull(),
    secretEnc: text("secret_enc").notNull(),
    status: text("status").$type<"active" | "revoked">().notNull().default("active"),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
    /** Newest signed X-Timestamp of a heartbeat: liveness (contract §5). */
    lastHeartbeatAt: integer("last_heartbeat_at"),
    /** Server time of the newest authenticated request of any kind. */
    lastSeenAt: integer("last_seen_at"),
    /** Latest heartbeat body, JSON. */
    health: text("health"),
    /**
     * Whether webhooks last said this phone is online (contract §15: `device.online` and
     * `device.offline` report changes of §5's rule, so the box remembers what it told).
     */
    onlineReported: integer("online_reported").notNull().default(0),
  },
  (t) => [index("devices_tenant_idx").on(t.tenantId, t.environment)],
);

/** One hour in ms: the unit of OCCURRED_HOUR. */
export const HOUR_MS = 3_600_000;

/**
 * The hour of an event's occurred_at, as the leading key of events_hour_amount_idx. Queries must
 * write it exactly so (SQLite uses an index on an expression only for the same expression).
 */
export const OCCURRED_HOUR = `occurred_at / ${HOUR_MS}`;

/** OCCURRED_HOUR of an instant (epoch ms; stored occurred_at values are never negative). */
export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS);
}

/**
 * Payment events, from phones (device_id set) or from the test-payment helper (device_id null).
 * `seq` is the commit order and the reconciliation view's cursor.
 */
export const events = sqliteTable(
  "events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    eventId: text("event_id").notNull(),
    deviceId: text("device_id"),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    /** `payment.received`, or `notification.posted` for a payment the box read from a notification (§16). */
    kind: text("kind").notNull(),
    source: text("source").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    payerName: text("payer_name"),
    securityCode: text("security_code"),
    reference: text("reference"),
    occurredAt: integer("occurred_at").notNull(),
    receivedAt: integer("received_at").notNull(),
    raw: text("raw"),
    /** SHA-256 of the canonical body: tells a replay from a reused idempotency key. */
    bodyHash: text("body_hash").notNull(),
    /** The first answer, returned again on every replay (contract §6). */
    responseStatus: integer("response_status").notNull(),
    responseBody: text("response_body").notNull(),
    matchStatus: text("match_status").$type<"matched" | "unmatched" | "ambiguous" | "duplicate">().notNull(),
    orderId: text("order_id"),
    duplicateOf: text("duplicate_of"),
    /**
     * 1 from storage until the mover (payments/recent-events.ts) folds the event into the big
     * indexes of older events, at a quiet moment; 0 after (and for every event stored before 0008).
     */
    recent: integer("recent").notNull().default(0),
  },
  (t) => [
    // Every index here is written when an event is stored (the `recent = 0` ones when it is moved),
    // and an index keyed by something random (an event id, a reference) costs about one page write
    // per event once it holds a million entries. So there are few, each serves named queries (EXPLAIN
    // QUERY PLAN tests in test/), and the two random ones are split by `recent`: a new event goes
    // into a small index of recent events; the mover moves recent events into the big one in bulk
    // when the box is quiet (bench: 4.15 → 3.31 pages written per event with 1 000 000 stored
    // events). Each lookup asks both. Queries must say `recent = 1` / `recent = 0` literally for
    // SQLite to use them.
    // Permanent per-device deduplication (contract §6): the database decides, not a cache. The two
    // unique indexes hold one partition each; the triggers of migration 0008 refuse an insert, or a
    // change of device_id or event_id, that would put a key of one partition in the other, and
    // moving a duplicate would break the old index.
    // Also finds an event by id for the connector: per device of the scope, and device_id IS NULL
    // for test payments.
    uniqueIndex("events_device_event_uq").on(t.deviceId, t.eventId).where(sql`recent = 0`),
    uniqueIndex("events_recent_device_event_uq").on(t.deviceId, t.eventId).where(sql`recent = 1`),
    // Duplicates by reference (contract §6); only events that carry one.
    index("events_dup_reference_idx").on(t.tenantId, t.environment, t.source, t.reference).where(sql`reference IS NOT NULL AND recent = 0`),
    index("events_recent_dup_reference_idx").on(t.tenantId, t.environment, t.source, t.reference).where(sql`reference IS NOT NULL AND recent = 1`),
    // The mover's queue: recent events in commit order (appended at its end, cheap).
    index("events_recent_seq_idx").on(t.seq).where(sql`recent = 1`),
    // The reconciliation view (contract §12): events of a status in commit order.
    index("events_status_idx").on(t.tenantId, t.environment, t.matchStatus, t.seq),
    // The console's payments of one wallet (contract §18 "Pagos"), one range per status like the
    // view above. Keyed like it, by seq last: a new event appends at the end of its range.
    index("events_source_idx").on(t.tenantId, t.environment, t.source, t.matchStatus, t.seq),
    // Payments of an amount in a time range, for two queries: duplicates by details (±120 s, filtered
    // by source and payer_name) and waiting payments inside an order's window (matching, contract
    // §10; filtered by match_status). Keyed by the hour of occurred_at first (OCCURRED_HOUR), then the
    // amount: a new payment happened within the last minutes, so its entry lands in the current
    // hour's small subtree, next to the other new ones, instead of on its own leaf among a million
    // (bench: 1.26 → 0.85 pages written per event with 1 000 000 stored events). A query names the
    // hours of its range (hourOf), each an index seek. match_status, source and payer_name are in
    // the index so that the filters read no table rows.
    index("events_hour_amount_idx").on(
      t.tenantId,
      t.environment,
      sql.raw(OCCURRED_HOUR),
      t.amount,
      t.occurredAt,
      t.matchStatus,
      t.source,
      t.payerName,
    ),
  ],
);

/** The shop's orders, keyed by the shop's own id within a tenant and environment. */
export const orders = sqliteTable(
  "orders",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    id: text("id").notNull(),
    amount: integer("amount").notNull(),
    expectedAmount: integer("expected_amount").notNull(),
    currency: text("currency").notNull(),
    /**
     * Stored status; a pending order past expires_at reads as expired (contract §10) whether or not
     * the sweeper (sweepExpiredOrders) has recorded "expired" yet.
     */
    status: text("status").$type<"pending" | "matched" | "cancelled" | "expired">().notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    customerName: text("customer_name"),
    securityCode: text("security_code"),
    uniqueAmount: integer("unique_amount", { mode: "boolean" }).notNull().default(false),
    metadata: text("metadata"),
    matchId: text("match_id"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.environment, t.id] }),
    // Only pending orders are ever looked up by amount or expiry, so only they are indexed: a match,
    // a cancel or an expiry deletes one entry instead of moving it, and the indexes stay small.
    // Queries must say `status = 'pending'` literally (PENDING_ORDER) for SQLite to use them.
    // The amount index carries every column the matching engine reads, so that finding a payment's
    // candidates reads no order rows (bench: 26 → 11 µs per event with 100 000 pending orders).
    index("orders_pending_candidates_idx")
      .on(t.tenantId, t.environment, t.expectedAmount, t.expiresAt, t.createdAt, t.id, t.currency, t.customerName, t.securityCode)
      .where(sql`status = 'pending'`),
    index("orders_pending_expiry_idx").on(t.expiresAt).where(sql`status = 'pending'`),
    // The list of orders for people (contract §19), newest first: one range per stored status, walked
    // backwards from a cursor (created_at, id), so a filter on a rare status reads only its own rows.
    // A new order is created about now, so its entry lands at the end of the pending range; a match
    // or an expiry moves it near the end of another range, as events_status_idx moves events. That
    // move is the price: 1.5 → 2.6 pages written per order matched (group commits of 20, 100 000
    // pending orders, paid within half an hour), 1.02 → 1.10 per order expired by the sweep.
    index("orders_list_idx").on(t.tenantId, t.environment, t.status, t.createdAt, t.id),
    // Expired orders a person may give a waiting payment to (§19 candidates): those that expired after
    // the payment, of its amount. Keyed by expires_at, not by the amount: the sweep records expiries
    // in expires_at order, so entries append instead of landing on a random leaf each, and a lookup
    // ranges over the orders expired since the payment (few for the payments a person looks at),
    // filtered by amount and created_at in the index, reading no order row.
    index("orders_expired_idx")
      .on(t.tenantId, t.environment, t.expiresAt, t.expectedAmount, t.createdAt, t.id)
      .where(sql`status = 'expired'`),
  ],
);

/**
 * A lookup of events by a key of the partitioned indexes (the `recent` column), in both partitions:
 * `select` (a SELECT whose WHERE ends in a condition) once with `recent = 1` and once with
 * `recent = 0`, written literally so that SQLite uses each partial index. Recent rows come first.
 * Parameters must be numbered (`?1`) or named, since each appears twice.
 */
export function inBothPartitions(select: string): string {
  return `SELECT * FROM (${select} AND recent = 1 UNION ALL ${select} AND recent = 0)`;
}

/**
 * `status = 'pending'` written literally, as in the partial indexes on orders: SQLite uses a partial
 * index only when the query's WHERE implies the index's, which a bound parameter never does.
 */
export const PENDING_ORDER = sql`${orders.status} = 'pending'`;

/** Matches; `seq` is commit order and the feed's cursor (contract §11). */
export const matches = sqliteTable(
  "matches",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    orderId: text("order_id").notNull(),
    eventSeq: integer("event_seq").notNull(),
    eventId: text("event_id").notNull(),
    deviceId: text("device_id"),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    source: text("source").notNull(),
    payerName: text("payer_name"),
    securityCode: text("security_code"),
    reference: text("reference"),
    occurredAt: integer("occurred_at").notNull(),
    matchedAt: integer("matched_at").notNull(),
    method: text("method").$type<"auto" | "manual">().notNull(),
  },
  (t) => [
    uniqueIndex("matches_id_uq").on(t.id),
    // An order takes at most one event and an event at most one order (contract §10).
    uniqueIndex("matches_order_uq").on(t.tenantId, t.environment, t.orderId),
    uniqueIndex("matches_event_uq").on(t.eventSeq),
    index("matches_feed_idx").on(t.tenantId, t.environment, t.seq),
  ],
);

/** The last acknowledged feed position per tenant and environment. */
export const feedAcks = sqliteTable(
  "feed_acks",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    throughSeq: integer("through_seq").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.environment] })],
);


/**
 * Values of this box made once, when the database is created (migration 0009): `cursor_key`, the
 * key that makes connector cursors opaque and bound to their tenant and environment (contract §20).
 */
export const boxSettings = sqliteTable("box_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export type WebhookEndpointStatus = "enabled" | "disabled";
export type WebhookDisabledReason = "gone" | "failing" | "manual";

/**
 * Webhook endpoints (contract §15). The signing secret is sealed with the master key like device
 * secrets (store/secret-box.ts); after a rotation the previous one keeps signing until
 * previous_secret_until. A deleted endpoint is hidden at once (deleted_at) and its messages are
 * removed in bounded steps by webhooks/retention.ts, then the row itself.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    url: text("url").notNull(),
    /** JSON array of event types. */
    events: text("events").notNull(),
    description: text("description"),
    status: text("status").$type<WebhookEndpointStatus>().notNull().default("enabled"),
    disabledReason: text("disabled_reason").$type<WebhookDisabledReason>(),
    secretEnc: text("secret_enc").notNull(),
    previousSecretEnc: text("previous_secret_enc"),
    previousSecretUntil: integer("previous_secret_until"),
    /** First failed attempt since the last success: 5 days of it disables the endpoint. */
    failingSince: integer("failing_since"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [index("webhook_endpoints_scope_idx").on(t.tenantId, t.environment, t.status)],
);

export type WebhookMessageStatus = "pending" | "succeeded" | "failed";

/**
 * The outbox: one row per message and endpoint, written in the transaction of the change it reports
 * (contract §15). `body` is the exact JSON sent on every attempt. `seq` orders the per-endpoint list.
 */
export const webhookMessages = sqliteTable(
  "webhook_messages",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    environment: text("environment").$type<Environment>().notNull(),
    type: text("type").notNull(),
    body: text("body").notNull(),
    status: text("status").$type<WebhookMessageStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    nextAttemptAt: integer("next_attempt_at"),
    lastAttemptAt: integer("last_attempt_at"),
    lastResponseStatus: integer("last_response_status"),
    lastError: text("last_error"),
  },
  (t) => [
    uniqueIndex("webhook_messages_id_uq").on(t.id),
    index("webhook_messages_endpoint_idx").on(t.endpointId, t.status, t.seq),
    // The dispatcher asks each enabled endpoint for its due messages: messages of a disabled
    // endpoint, which wait, are never walked over.
    index("webhook_messages_due_idx").on(t.endpointId, t.nextAttemptAt).where(sql`status = 'pending'`),
    index("webhook_messages_created_idx").on(t.createdAt),
  ],
);

export type { NotificationStatus };

/**
 * Wallet notifications that phones sent for the box to read (contract §16), one per phone and
 * event_id. A `payment` is also an event (same event_id and device), stored and matched like any;
 * `not_a_payment` keeps no title or text; `unrecognized` keeps them and is read again at every start.
 * The first answer is kept for replays, as for events.
 */
export const notifications = sqliteTable(
  "notifications",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    eventId: text("event_id").notNull(),
    deviceId: text("device_id").notNull(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    environment: text("environment").$type<Environment>().notNull(),
    package: text("package").notNull(),
    title: text("title"),
    text: text("text"),
    status: text("status").$type<NotificationStatus>().notNull(),
    format: text("format"),
    occurredAt: integer("occurred_at").notNull(),
    receivedAt: integer("received_at").notNull(),
    bodyHash: text("body_hash").notNull(),
    responseStatus: integer("response_status").notNull(),
    responseBody: text("response_body").notNull(),
  },
  (t) => [
    // Permanent deduplication per phone, shared with events: an event_id is one or the other.
    uniqueIndex("notifications_device_event_uq").on(t.deviceId, t.eventId),
    // The connector's list (contract §16), one range per status.
    index("notifications_status_idx").on(t.tenantId, t.environment, t.status, t.seq),
    // Per-phone counts over the last 7 days (GET /connector/v1/devices), read from the index alone.
    index("notifications_received_idx").on(t.tenantId, t.environment, t.receivedAt, t.deviceId, t.status),
    // What is read again at start: few rows among many.
    index("notifications_unrecognized_idx").on(t.seq).where(sql`status = 'unrecognized'`),
  ],
);

/**
 * One-time sign-in links of the merchant's console (contract §18). Only an HMAC of the token under
 * the master key is stored (contract §20). A link is used once: opening it sets used_at and makes a
 * session in the same transaction.
 */
export const consoleLinks = sqliteTable(
  "console_links",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    tokenHash: text("token_hash").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [uniqueIndex("console_links_token_uq").on(t.tokenHash)],
);

/**
 * Console sessions (contract §18): 30 days, ended by `cuadra console revoke`. The cookie holds the
 * token; only its HMAC is stored. Every request reads the row, so a revocation takes effect on the
 * next request. `environment` is the live/test switch of that browser.
 */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    tokenHash: text("token_hash").notNull(),
    environment: text("environment").$type<Environment>().notNull().default("live"),
    /** The browser, as its User-Agent named it (cut to 256), so a person can tell sessions apart. */
    userAgent: text("user_agent"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("console_sessions_token_uq").on(t.tokenHash), index("console_sessions_tenant_idx").on(t.tenantId, t.createdAt)],
);
