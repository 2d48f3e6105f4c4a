// POST /connector/v1/orders and GET /connector/v1/orders/{id} (contract §9).
import { Elysia } from "elysia";
import { jsonBody } from "../http/body";
import { describe } from "../http/openapi";
import { validator } from "../http/validation";
import { authenticateFirst, type Authenticate } from "./auth";
import type { ConnectorDeps } from "./deps";
import {
  EXAMPLE_ORDER,
  EXAMPLE_PENDING_ORDER,
  EXAMPLE_SYNC,
  OrderSchema,
  SyncOrdersBodySchema,
  SyncOrdersResponseSchema,
} from "./model";
import { AUTH_ERRORS, BODY_ERRORS } from "./errors-doc";
import { getOrder } from "./orders.service";

const checkSync = validator(SyncOrdersBodySchema);

export const orderRoutes = (deps: ConnectorDeps, authenticate: Authenticate) =>
  new Elysia()
    .post(
      "/orders",
      async ({ request, body }) => {
        const { tenantId, environment } = authenticate(request);
        const { orders } = checkSync(body);
        return { orders: await deps.writer.run("syncOrders", { scope: { tenantId, environment }, orders, now: deps.clock.now() }) };
      },
      {
        parse: [authenticateFirst(authenticate), jsonBody],
        ...describe({
          tag: "Connector",
          summary: "Sync orders",
          operationId: "syncOrders",
          description: `Creates or updates up to 500 orders at once, all or nothing. Send each pending order as the shop knows it; sending an order exactly as stored changes nothing (not even \`updated_at\`), so re-sending the whole batch is safe.

- One invalid order rejects the batch: \`400 invalid_request\` with fields such as \`/orders/3/amount\`; nothing is stored.
- A re-sync that leaves out \`created_at\` or \`expires_at\` keeps the stored ones.
- \`status: cancelled\` cancels; re-sending it as \`pending\` reopens it. A matched order cannot be cancelled or re-priced (\`409 order_already_matched\`); its other fields may change.
- \`unique_amount: true\` gives the order an \`expected_amount\` of \`amount + k\` cents, the smallest k in 0–99 that no other pending order holds; it stays fixed across re-syncs. Ask the customer to pay \`expected_amount\`.
- Payments that arrived before their order are matched when it is synced (the answer already shows the match).`,
          body: SyncOrdersBodySchema,
          bodyExample: EXAMPLE_SYNC,
          success: {
            status: 200,
            description: "The orders as stored, in input order",
            schema: SyncOrdersResponseSchema,
            example: { orders: [EXAMPLE_ORDER, EXAMPLE_PENDING_ORDER] },
          },
          errors: [
            ["invalid_request", { errors: [{ field: "/orders/3/amount", message: "Expected integer" }] }],
            ["unsupported_currency", { errors: [{ field: "/orders/0/currency", message: 'Only PEN is supported, not "USD"' }] }],
            ["order_already_matched", { order_id: "A-1042" }],
            ["unique_amount_unavailable", { order_id: "A-1043" }],
            ...AUTH_ERRORS,
            ...BODY_ERRORS,
          ],
          security: "connector",
        }),
      },
    )
    .get(
      "/orders/:id",
      ({ request, params }) => {
        const caller = authenticate(request);
        return getOrder(deps.store, caller, params.id ?? "", deps.clock.now());
      },
      describe({
        tag: "Connector",
        summary: "Get an order",
        operationId: "getOrder",
        description: "The order with its status and, once paid, its match. Percent-encode `/` and `#` in the id (`A%2F1042`).",
        success: { status: 200, description: "The order", schema: OrderSchema, example: EXAMPLE_ORDER },
        errors: [["order_not_found", { order_id: "A-1042" }], ...AUTH_ERRORS],
        security: "connector",
      }),
    );
