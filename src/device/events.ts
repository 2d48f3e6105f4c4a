// POST /device/v1/events (contract §6): a phone reports a payment it saw. Storage, idempotency and
// duplicates live in src/payments/ingest.ts, shared with the connector's test payments.
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { ApiError } from "../http/errors";
import { idempotencyKey } from "../http/idempotency";
import { describe } from "../http/openapi";
import { ingestNotification, ingestPayment } from "../payments/ingest";
import { EventReceiptSchema, PaymentEventSchema, parsePaymentEvent } from "../payments/model";
import { NOTIFICATION_REQUEST_EXAMPLES, NOTIFICATION_RESPONSE_EXAMPLES } from "../notifications/examples";
import { NOTIFICATION_POSTED, NotificationEventSchema, NotificationReceiptSchema, parseNotificationEvent } from "../notifications/model";
import { T } from "../http/schemas";
import { signingExample } from "../system/docs-text";
import { deviceAuthOf, signedJsonBody } from "./auth";
import { DEVICE_ERRORS, SIGNATURE_PARAMETERS } from "./openapi";

export const eventRoutes = (deps: AppDeps) =>
  new Elysia().post(
    "/events",
    async ({ request, body }) => {
      const auth = deviceAuthOf(request);
      const key = idempotencyKey(request.headers.get("idempotency-key"));
      if (key === null) throw new ApiError("idempotency_key_missing", "Send the event_id in the Idempotency-Key header");
      const scope = { tenantId: auth.tenantId, environment: auth.environment, deviceId: auth.deviceId };
      const sameKey = (eventId: string) => {
        if (key !== eventId) {
          throw new ApiError("idempotency_key_mismatch", "Idempotency-Key must equal the body's event_id", {
            errors: [{ field: "/event_id", message: "differs from the Idempotency-Key header" }],
          });
        }
      };
      // contract §16: the kind says which body this is; any other kind is checked as a payment
      // event, whose checks answer unsupported_event_kind.
      let result;
      if ((body as { kind?: unknown } | null)?.kind === NOTIFICATION_POSTED) {
        const event = parseNotificationEvent(body);
        sameKey(event.event_id);
        result = await ingestNotification(deps, scope, event);
      } else {
        const event = parsePaymentEvent(body);
        sameKey(event.event_id);
        result = await ingestPayment(deps, scope, event);
      }
      return Response.json(result.body, {
        status: result.status,
        headers: result.replayed ? { "idempotent-replayed": "true" } : {},
      });
    },
    {
      parse: signedJsonBody(deps),
      ...describe({
        tag: "Device",
        summary: "Report a payment, or a wallet notification for the box to read",
        operationId: "sendEvent",
        description: [
          "Signed (see the Device section: Signing device requests). `Idempotency-Key` carries the `event_id`.",
          "First receipt: `201` once the event is on disk. The same event again, with the same body, from the same phone: the first answer",
          "again (same status and body) with `Idempotent-Replayed: true`, at any later time. The same `event_id` with a different body:",
          "`422 idempotency_key_reused`. A retry while the first is still being stored: `409 idempotency_key_in_use` with `Retry-After: 1`.",
          "\n\nWhen another phone of the shop already reported the same payment (same `source` and `reference`, both present; or same",
          "`source`, `amount` and `payer_name` with `occurred_at` within 120 000 ms and the same `security_code` where both have one),",
          "the event is stored with `match.status: duplicate` and never matches an order. One phone's own events are never duplicates",
          "of each other, and the connector's test payments (no phone) take no part in this rule.",
          "\n\n**Two kinds.** `payment.received`: the phone read the payment itself and sends `source`, `amount`, `payer_name`…",
          "`notification.posted`: the phone sends the wallet's notification as it saw it (`raw`: `package`, `title`, `text`) and the box reads it,",
          "so a wallet that changes its wording is fixed by updating the box, not every phone. The answer says what the box read",
          "(`notification.status`: `payment`, `not_a_payment` or `unrecognized`, and the `format`). A payment is stored and matched exactly as a",
          "`payment.received` event with the fields shown in `payment` (duplicates and matching included). A notification that is not a payment",
          "(money sent, a promotion, a login code, a collection request, a card charge) keeps no title or text. An unrecognised one is kept with its",
          "text, raised as `notification.unrecognized` to webhooks, and read again at every start of the box: a payment found then, at most 30 days old,",
          "is stored and matched with the same `event_id` and phone. Android 15 and later may hide a wallet's text from the app",
          "(`Sensitive notification content hidden`): that is `unrecognized` with format `android.redacted`, so the shop learns that this phone hides payments.",
          "\n\nRead today: Yape (`com.bcp.innovacxion.yapeapp`: the masked name with its security code, and `Yape!` with a full name), Plin in Interbank's",
          "(`pe.com.interbank.mobilebanking`) and BBVA's (`com.bbva.nxt_peru`) apps, and BBVA's QR charge. A notification is read as a wallet's only",
          "when it comes from that wallet's package: the same text forwarded by WhatsApp or Gmail is unrecognised. BCP's and Scotiabank's own",
          "notifications are kept as unrecognised until a capture of their wording is known.",
        ].join(" "),
        body: T.Union([PaymentEventSchema, NotificationEventSchema], { description: "A payment event (`payment.received`) or a notification event (`notification.posted`), told apart by `kind`" }),
        bodyExamples: {
          payment: { summary: "payment.received: the phone read the payment", value: JSON.parse(signingExample().body) },
          ...NOTIFICATION_REQUEST_EXAMPLES,
        },
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: true,
            description: 'The body\'s `event_id` (the quoted form `"…"` is accepted)',
            schema: { type: "string" },
            example: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b",
          },
          ...SIGNATURE_PARAMETERS,
        ],
        success: {
          status: 201,
          description: "Stored (or, with `Idempotent-Replayed: true`, the stored first answer)",
          schema: T.Union([EventReceiptSchema, NotificationReceiptSchema], { description: "The answer for the event's kind" }),
          headers: { "Idempotent-Replayed": { description: "`true` when this is the stored answer of an earlier identical request", schema: { type: "string" } } },
          examples: {
            payment: {
              summary: "payment.received",
              value: { event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b", status: "accepted", received_at: 1795262400120, match: { status: "unmatched", order_id: null } },
            },
            ...NOTIFICATION_RESPONSE_EXAMPLES,
          },
        },
        errors: [
          ["invalid_request", { errors: [{ field: "/amount", message: "Expected integer" }] }],
          ["unsupported_currency", { errors: [{ field: "/currency", message: 'Only PEN is supported, not "USD"' }] }],
          "unsupported_event_kind",
          "event_too_old",
          "idempotency_key_missing",
          "idempotency_key_mismatch",
          ...DEVICE_ERRORS,
          "idempotency_key_in_use",
          "idempotency_key_reused",
        ],
        security: "device",
      }),
    },
  );
