// Schemas of the webhook routes (contract §15), with the examples the OpenAPI document shows and
// the worked signing example of the Webhooks section.
import { EpochMs, Int, named, OrNull, T } from "../http/schemas";

/** A value or null, described on the union itself (where the OpenAPI document shows it). */
import { MESSAGE_STATUSES, MAX_URL_LENGTH } from "./endpoints.service";
import { WEBHOOK_EVENT_TYPES } from "./outbox";
import { DELIVERY_TIMEOUT_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from "./schedule";
import { signatureHeader } from "./signature";

const EventType = () =>
  T.Union(
    WEBHOOK_EVENT_TYPES.map((t) => T.Literal(t)),
    { description: "A webhook event type" },
  );

const Url = (description: string) => T.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description, examples: ["https://shop.example/cuadra/webhooks"] });
const EventTypes = (description: string) => T.Array(EventType(), { minItems: 1, description, examples: [["match.created", "payment.received"]] });
const Description = () => OrNull(T.String({ maxLength: 256, examples: ["Tienda online"] }), "A note for people: what this endpoint is for");

export const CreateEndpointBodySchema = T.Object({
  url: Url("Where messages are POSTed: an absolute `http://` or `https://` URL of at most 2048 characters (addresses on the shop's network are allowed)"),
  events: T.Optional(EventTypes("The event types this endpoint receives; default: all of them")),
  description: T.Optional(Description()),
});

export const UpdateEndpointBodySchema = T.Object({
  url: T.Optional(Url("A new address for the endpoint")),
  events: T.Optional(EventTypes("The event types this endpoint receives from now on")),
  description: T.Optional(Description()),
  status: T.Optional(
    T.Union([T.Literal("enabled"), T.Literal("disabled")], {
      description: "`disabled` stops deliveries (messages wait); `enabled` resumes them, including the messages that waited",
    }),
  ),
});

export const EndpointSchema = T.Object({
  id: T.String({ description: "`whe_…`", examples: ["whe_4Kq9ZbT2LmX7dR1sVw0p"] }),
  url: T.String({ description: "Where messages are POSTed" }),
  events: T.Array(EventType(), { description: "The event types this endpoint receives" }),
  description: OrNull(T.String(), "A note for people"),
  status: T.Union([T.Literal("enabled"), T.Literal("disabled")], { description: "A disabled endpoint receives nothing until it is enabled again" }),
  disabled_reason: OrNull(
    T.Union([T.Literal("gone"), T.Literal("failing"), T.Literal("manual")]),
    "Why it is disabled: `gone` (it answered 410), `failing` (no success for 5 days), `manual` (PATCH); null while enabled",
  ),
  created_at: EpochMs("When it was created"),
  updated_at: EpochMs("When it last changed"),
});

export const EndpointWithSecretSchema = T.Composite([
  EndpointSchema,
  T.Object({ secret: T.String({ description: "`whsec_…`: the signing secret, shown this once. Keep it in the receiver's configuration." }) }),
]);

export const EndpointListSchema = T.Object({ data: T.Array(EndpointSchema, { description: "This key's endpoints, oldest first" }) });
export const DeletedEndpointSchema = T.Object({
  id: T.String({ description: "The endpoint that was deleted" }),
  deleted: T.Literal(true, { description: "Always true" }),
});
export const RotatedSecretSchema = T.Object({
  id: T.String({ description: "The endpoint" }),
  secret: T.String({ description: "The new `whsec_…` secret, shown this once; for 24 h messages are also signed with the previous one" }),
});
export const QueuedMessageSchema = T.Object({ message_id: T.String({ description: "`msg_…`: the queued message", examples: ["msg_0Z3kT9aB4cD5eF6gH7iJ"] }) });
export const RetriedMessageSchema = T.Object({
  message_id: T.String({ description: "The message" }),
  status: T.Literal("pending", { description: "Pending again: it is attempted at once (or once its endpoint is enabled)" }),
});

export const MessageSchema = T.Object({
  id: T.String({ description: "`msg_…`, also sent as `webhook-id`: deduplicate by it", examples: ["msg_0Z3kT9aB4cD5eF6gH7iJ"] }),
  type: EventType(),
  status: T.Union(
    MESSAGE_STATUSES.map((s) => T.Literal(s)),
    { description: `\`pending\` (waiting for its next attempt), \`succeeded\` (a 2xx), \`failed\` (${MAX_ATTEMPTS} attempts failed)` },
  ),
  attempts: Int({ minimum: 0, description: "Attempts made so far" }),
  created_at: EpochMs("When the change it reports was committed"),
  next_attempt_at: OrNull(EpochMs(), "When it is attempted next (epoch ms); null unless pending"),
  last_attempt_at: OrNull(EpochMs(), "When it was last attempted (epoch ms); null before the first attempt"),
  last_response_status: OrNull(Int(), "The HTTP status of the last attempt; null when there was no answer"),
  last_error: OrNull(T.String(), "Why the last attempt failed (`HTTP 500`, `timeout after 15 s`, a network error); null after a success"),
});
export const MessageListSchema = T.Object({
  data: T.Array(MessageSchema, { description: "Messages, newest first" }),
  next_cursor: OrNull(T.String(), "Pass as `after` for the next (older) page; null when the list is empty"),
  has_more: T.Boolean({ description: "Whether older messages follow" }),
});

named({
  WebhookEndpoint: EndpointSchema,
  WebhookEndpointWithSecret: EndpointWithSecretSchema,
  WebhookMessage: MessageSchema,
});

export const EXAMPLE_ENDPOINT = {
  id: "whe_4Kq9ZbT2LmX7dR1sVw0p",
  url: "https://shop.example/cuadra/webhooks",
  events: ["match.created", "payment.received"],
  description: "Tienda online",
  status: "enabled",
  disabled_reason: null,
  created_at: 1795363200000,
  updated_at: 1795363200000,
};
export const EXAMPLE_SECRET = "whsec_MHOtT3iDLWAhgiMJXncMbpFM3hHtt0qz9IGYysKkJC8=";

export const EXAMPLE_MESSAGE = {
  id: "msg_0Z3kT9aB4cD5eF6gH7iJ",
  type: "match.created",
  status: "succeeded",
  attempts: 1,
  created_at: 1795363261000,
  next_attempt_at: null,
  last_attempt_at: 1795363261004,
  last_response_status: 204,
  last_error: null,
};

/** The worked example of the Webhooks section: fixed inputs, and the signature they give. */
export const SIGNING_EXAMPLE = {
  secret: EXAMPLE_SECRET,
  id: "msg_0Z3kT9aB4cD5eF6gH7iJ",
  timestamp: 1795363261,
  body: '{"type":"webhook.test","timestamp":"2026-11-21T15:21:01.000Z","data":{"endpoint_id":"whe_4Kq9ZbT2LmX7dR1sVw0p"}}',
};
export const SIGNING_EXAMPLE_SIGNATURE = signatureHeader([SIGNING_EXAMPLE.secret], SIGNING_EXAMPLE.id, SIGNING_EXAMPLE.timestamp, SIGNING_EXAMPLE.body);

const delays = ["at once", ...RETRY_DELAYS_MS.map((ms) => (ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`))].join(", ");

export const WEBHOOKS_DESCRIPTION = `The box POSTs a signed message to your endpoints when something happens, so your software need not poll. The pull feed (\`GET /connector/v1/matches\`) stays the source of truth: a webhook is a notice, delivered **at least once**, in no promised order. Deduplicate by \`webhook-id\`; order by the data's own fields.

**Event types:** \`match.created\` (data: a Match), \`payment.received\` and \`payment.updated\` (data: a payment as in \`GET /connector/v1/events\`), \`device.online\` and \`device.offline\` (data: a phone as in \`GET /connector/v1/devices\`; offline is told within 30 s of the phone stopping to read as online), \`notification.unrecognized\` (a phone sent a notification the box could not read, Android's hidden texts included; data: \`{"event_id","device_id","package","title","text","received_at"}\`, see \`GET /connector/v1/notifications\`), \`webhook.test\` (data: \`{"endpoint_id"}\`). Test keys manage test endpoints, which receive test-environment events only, and live keys live ones.

**Delivery** follows the [Standard Webhooks](https://www.standardwebhooks.com) specification, so its published libraries (\`standardwebhooks\` on npm, PyPI, Go, …) verify it: \`POST\` with \`Content-Type: application/json\`, \`User-Agent: Cuadra/<version>\` and the headers \`webhook-id\` (the message id), \`webhook-timestamp\` (Unix seconds of this attempt) and \`webhook-signature\`. The body is \`{"type","timestamp","data"}\` (at most 64 KiB). Any 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s is a success; redirects are not followed. Attempts: ${delays} (each delay ±10 %); a \`429\` or \`503\` with \`Retry-After\` of at most an hour waits at least that long. After ${MAX_ATTEMPTS} failures the message is \`failed\` (retry it by hand). \`410 Gone\` disables the endpoint at once; no success for 5 days while messages fail disables it too. A disabled endpoint receives nothing: messages already queued wait and resume when you enable it again; changes made while it is disabled are not queued for it. Messages are kept 30 days.

**Verifying a message.** \`webhook-signature\` is a space-separated list of \`v1,<base64 signature>\`; one is valid. The signature is \`base64(HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + body))\`, where \`key\` is the base64-decoded part of the secret after \`whsec_\`, and body is the raw bytes received (do not re-serialise the JSON). Refuse a \`webhook-timestamp\` more than 5 minutes from your clock. For 24 h after a secret rotation every message carries two signatures, one per secret. Worked example:

- secret: \`${SIGNING_EXAMPLE.secret}\`
- \`webhook-id\`: \`${SIGNING_EXAMPLE.id}\`
- \`webhook-timestamp\`: \`${SIGNING_EXAMPLE.timestamp}\`
- body: \`${SIGNING_EXAMPLE.body}\`
- \`webhook-signature\`: \`${SIGNING_EXAMPLE_SIGNATURE}\`

With the published library (TypeScript, \`npm install standardwebhooks\`):

\`\`\`ts
import { Webhook } from "standardwebhooks";
const wh = new Webhook(process.env.CUADRA_WEBHOOK_SECRET!); // whsec_…
// In your handler: the raw body text and the request's headers. Throws when the signature is wrong.
const message = wh.verify(rawBody, { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature });
\`\`\`

The same check in a shell:

\`\`\`sh
KEY_HEX=$(printf '%s' "\${SECRET#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \\n')
printf '%s' "$ID.$TIMESTAMP.$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY_HEX" -binary | base64
# compare with each v1,… of webhook-signature (after the comma)
\`\`\``;
