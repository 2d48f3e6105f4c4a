// POST /device/v1/events (contract §6): a phone reports a payment it saw. Storage, idempotency and
// duplicates live in src/payments/ingest.ts, shared with the connector's test payments.
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { ApiError } from "../http/errors";
import { idempotencyKey } from "../http/idempotency";
import { describe } from "../http/openapi";
import { ingestPayment } from "../payments/ingest";
import { EventReceiptSchema, PaymentEventSchema, parsePaymentEvent } from "../payments/model";
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
      const event = parsePaymentEvent(body);
      if (key !== event.event_id) {
        throw new ApiError("idempotency_key_mismatch", "Idempotency-Key must equal the body's event_id", {
          errors: [{ field: "/event_id", message: "differs from the Idempotency-Key header" }],
        });
      }
      const result = await ingestPayment(deps, { tenantId: auth.tenantId, environment: auth.environment, deviceId: auth.deviceId }, event);
      return Response.json(result.body, {
        status: result.status,
        headers: result.replayed ? { "idempotent-replayed": "true" } : {},
      });
    },
    {
      parse: signedJsonBody(deps),
      ...describe({
        tag: "Device",
        summary: "Report a payment the phone saw",
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
        ].join(" "),
        body: PaymentEventSchema,
        bodyExample: JSON.parse(signingExample().body),
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
          schema: EventReceiptSchema,
          headers: { "Idempotent-Replayed": { description: "`true` when this is the stored answer of an earlier identical request", schema: { type: "string" } } },
          example: {
            event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b",
            status: "accepted",
            received_at: 1795262400120,
            match: { status: "unmatched", order_id: null },
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
