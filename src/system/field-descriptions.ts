// What each field of the API means, for the OpenAPI document (openapi-document.ts), where its schema
// does not say it itself. One word, one meaning: a name means the same thing on every object, and
// `Object.field` entries say it where the object changes the meaning (several kinds of `status`).

export const FIELD_DESCRIPTIONS: Record<string, string> = {
  // money and payments
  amount: "Integer amount in cents (1 to 100 000 000); S/ 25.00 is 2500",
  currency: "Always `PEN`",
  source: "The wallet that notified the payment, e.g. `yape`, `plin`, `bcp`, `interbank`, `bbva`, `scotiabank`",
  payer_name: "The payer's name as the notification shows it, possibly cut short with `*` (`Yanina Man*`); null when not shown",
  security_code: "The short code the wallet shows with the payment (Yape's three digits); null when there is none",
  reference: "The operation number of the payment, when the wallet shows one; null otherwise",
  event_id: "The id the phone gave the payment event (unique per phone), or the test payment's id",
  device_id: "The phone (`dev_…`); null for a test payment",
  order_id: "The shop's own order id",
  duplicate_of: "For a duplicate: the `event_id` of the first report of the same payment; null otherwise",
  match_status: "`matched`, `unmatched` (no pending order fits yet), `ambiguous` (several fit; match by hand) or `duplicate` (another phone's report)",
  match: "The match that paid this order; null while it is not matched",
  method: "`auto` (the rules of matching chose it) or `manual` (a person did, POST /connector/v1/matches)",
  customer_name: "The customer's name, when the shop knows it; used to tell apart orders of the same amount",
  unique_amount: "Whether `expected_amount` was made unique (amount + 0–99 cents) among pending orders",
  metadata: "The shop's own JSON object, stored and echoed; null when none was sent",
  expires_at: "Epoch ms when the order stops accepting payment",

  // pages
  data: "The items of this page, oldest first",
  next_cursor: "Pass as `after` for the next page (and, on the matches feed, as `through` to acknowledge)",
  has_more: "true when more items wait after this page: fetch again right away",

  // phones
  label: "The name the phone was given on activation, e.g. `Caja 1`",
  platform: "`android` or `ios`",
  app_version: "Version of the Cuadra app on the phone",
  os_version: "Version of the phone's operating system",
  last_seen_at: "Epoch ms of the phone's last accepted request (server time); null before any",
  last_heartbeat_at: "Signed timestamp of the phone's newest heartbeat; null before the first",
  battery_level: "Battery charge in percent, 0–100",
  charging: "Whether the phone is charging",
  notification_access: "Whether the app may read notifications (without it, no payment is seen)",
  listener_connected: "Whether the app's notification listener is running",
  network: "How the phone is connected, as the app names it (e.g. `wifi`, `cellular`)",
  queue_depth: "Events waiting on the phone to be sent",
  last_notification_at: "Epoch ms when the app last saw a wallet notification",
  news_after: "Id of the newest news item the app already has; later ones are sent",
  device: "The phone that sent this request",
  tenant_name: "The shop's name",
  environment: "`live` or `test`: whose data this phone's events join",

  // licenses and config
  plan: "The license's plan name",
  max_devices: "How many phones (not revoked, both environments) the shop may have",
  devices_in_use: "How many phones (not revoked, both environments) the shop has now",
  reason: "Why the license reads as suspended: `suspended` or `expired`; null while active",
  heartbeat_interval_ms: "How often the app sends a heartbeat, in ms",
  max_clock_skew_ms: "How far `X-Timestamp` may be from server time, in ms",
  max_event_bytes: "The largest event body the box accepts, in bytes",

  // news
  title: "A short headline",
  body: "The text to show",
  level: "`info`, `warning` or `critical`",

  // problems
  detail: "What went wrong, for people (clients branch on `code`)",
  request_id: "The request's id, as in the `X-Request-Id` header",
  errors: "For `invalid_request` and `invalid_cursor`: each field that was refused",
  field: "JSON pointer of the refused field, e.g. `/orders/3/amount`",
  message: "What is wrong with the field, for people",
  version: "The running Cuadra version",

  // fields whose meaning depends on the object
  "Order.id": "The shop's own order id, as sent",
  "Order.status": "`pending`, `matched`, `cancelled` or `expired` (a pending order past `expires_at` reads as expired)",
  "Order.currency": "Always `PEN`",
  "Match.status": "`auto` or `manual`",
  "Device.status": "`active`, or `revoked` (its requests answer 403 device_revoked)",
  "License.status": "`active` or `suspended` (a license past `expires_at` reads as suspended, reason `expired`)",
  "License.expires_at": "Epoch ms when the license ends; null when it does not",
  "Problem.title": "A short summary of the code",
  "Problem.status": "The HTTP status, repeated",
  "NewsItem.id": "The news item's id (`nws_…`); send the newest as `news_after`",
  "HeartbeatResponse.device": "The phone that sent the heartbeat",
  "EventReceipt.status": "Always `accepted`: the event is stored",
  "EventReceipt.match": "What matching decided for this payment when it was stored",
};
