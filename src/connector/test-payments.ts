// POST /connector/v1/test/payments (contract §12): a payment without a phone, for trying an
// integration with a test key. It goes through the same ingestion and matching as a phone's event
// (src/payments/ingest.ts), with no device.
import { Elysia } from "elysia";
import { jsonBody } from "../http/body";
import { ApiError } from "../http/errors";
import { idempotencyKey } from "../http/idempotency";
import { invalid } from "../http/validation";
import { describe } from "../http/openapi";
import { T } from "../http/schemas";
import { newId } from "../ids";
import { ingestPayment } from "../payments/ingest";
import { EventReceiptSchema, parsePaymentEvent, PaymentEventSchema } from "../payments/model";
import { authenticateFirst, type Authenticate } from "./auth";
import type { ConnectorDeps } from "./deps";
import { AUTH_ERRORS, BODY_ERRORS } from "./errors-doc";

const EVENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const TestPaymentSchema = T.Composite(
  [
    T.Omit(PaymentEventSchema, ["event_id", "occurred_at"]),
    T.Object({
      occurred_at: T.Optional(
        T.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: "When the payment happened, epoch ms; default: now (an addition for test payments: a phone always sends it)" }),
      ),
      event_id: T.Optional(
        T.String({
          pattern: "^[A-Za-z0-9._:-]{1,64}$",
          description: "Optional: an id of your own, so that repeating the request returns the first answer instead of a second payment. Default: a new `evt_…` per request. `Idempotency-Key` works too.",
        }),
      ),
    }),
  ],
  { $id: "#/components/schemas/TestPayment", description: "A `payment.received` event as a phone would send it; `event_id` is optional" },
);

// No occurred_at: it defaults to now, so the example works whenever it is pasted.
const EXAMPLE_TEST_PAYMENT = {
  kind: "payment.received",
  source: "yape",
  amount: 2500,
  currency: "PEN",
  payer_name: "Yanina Man*",
  security_code: "482",
};

/** Refuses live keys before the body is read. */
const requireTestKey =
  (authenticate: Authenticate) =>
  ({ request }: { request: Request }): undefined => {
    if (authenticate(request).environment !== "test") {
      throw new ApiError("test_mode_only", "Test payments need a test key (sk_test_…); live payments come only from phones");
    }
    return undefined;
  };

export const testPaymentRoutes = (deps: ConnectorDeps, authenticate: Authenticate) =>
  new Elysia().post(
    "/test/payments",
    async ({ request, body }) => {
      requireTestKey(authenticate)({ request });
      const caller = authenticate(request);
      const header = idempotencyKey(request.headers.get("idempotency-key"));
      const given = typeof body === "object" && body !== null ? (body as Record<string, unknown>).event_id : undefined;
      // Left out, it is made here; present, it must be a real one (not "", null, 5, {} or []).
      if (given !== undefined && (typeof given !== "string" || !EVENT_ID.test(given))) {
        throw invalid([{ field: "/event_id", message: "must be 1 to 64 of A-Z a-z 0-9 . _ : - (or left out)" }]);
      }
      const fromBody = given;
      if (header !== null && fromBody !== undefined && header !== fromBody) {
        throw new ApiError("idempotency_key_mismatch", "Idempotency-Key must equal the body's event_id", {
          errors: [{ field: "/event_id", message: "differs from the Idempotency-Key header" }],
        });
      }
      const eventId = header ?? fromBody ?? newId("evt");
      const fields = body as Record<string, unknown>;
      const event = parsePaymentEvent({ ...fields, event_id: eventId, occurred_at: fields.occurred_at ?? deps.clock.now() });
      // A retry of a request that left occurred_at out must still be the same request: its hash
      // leaves out the occurred_at that was filled in.
      const identity = fields.occurred_at === undefined ? { ...event, occurred_at: undefined } : event;
      const result = await ingestPayment(deps, { tenantId: caller.tenantId, environment: caller.environment, deviceId: null }, event, identity);
      return Response.json(result.body, { status: result.status, headers: result.replayed ? { "idempotent-replayed": "true" } : {} });
    },
    {
      parse: [authenticateFirst(authenticate), requireTestKey(authenticate), jsonBody],
      ...describe({
        tag: "Connector",
        summary: "Send a test payment",
        operationId: "createTestPayment",
        description: `Test keys only (\`sk_test_…\`; a live key gets \`403 test_mode_only\`). Pretends a phone saw this payment: it is stored and matched exactly like a phone's event (duplicates, matching) and answers the same way, so a shop developer can try the whole integration without a phone. The match, if any, appears in \`GET /connector/v1/matches\`.

Send the body of a \`payment.received\` event; \`event_id\` may be left out (a new one is made per request). With your own \`event_id\` (or \`Idempotency-Key\`), repeating the request returns the first answer with \`Idempotent-Replayed: true\`.`,
        body: TestPaymentSchema,
        bodyExample: EXAMPLE_TEST_PAYMENT,
        parameters: [
          { name: "Idempotency-Key", in: "header", required: false, description: "Optional event_id for safe retries", schema: { type: "string" } },
        ],
        success: {
          status: 201,
          description: "Stored and matched (or, with `Idempotent-Replayed: true`, the stored first answer)",
          schema: EventReceiptSchema,
          headers: { "Idempotent-Replayed": { description: "`true` when this is the stored answer of an earlier identical request", schema: { type: "string" } } },
          example: { event_id: "evt_5mQ2xR8tK1vW7yH3zL9d", status: "accepted", received_at: 1795262400120, match: { status: "matched", order_id: "A-1042" } },
        },
        errors: [
          "test_mode_only",
          ["invalid_request", { errors: [{ field: "/amount", message: "Expected integer" }] }],
          ["unsupported_currency", { errors: [{ field: "/currency", message: 'Only PEN is supported, not "USD"' }] }],
          "unsupported_event_kind",
          "event_too_old",
          "idempotency_key_mismatch",
          "idempotency_key_in_use",
          "idempotency_key_reused",
          ...AUTH_ERRORS,
          ...BODY_ERRORS,
        ],
        security: "connector",
      }),
    },
  );
