// POST /connector/v1/orders and GET /connector/v1/orders/{id} (contract §9); GET /connector/v1/orders,
// the list for people (§19).
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
  OrdersPageSchema,
  SyncOrdersBodySchema,
  SyncOrdersResponseSchema,
} from "./model";
import { AUTH_ERRORS, BODY_ERRORS } from "./errors-doc";
import { getOrder, listOrders } from "./orders.service";
import { EXAMPLE_SCOPE, exampleCursors } from "./cursor";
import { afterParam, LimitParam, orderListQuery, OrderStatusParam } from "./query";

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
      "/orders",
      ({ request }) => {
        const caller = authenticate(request);
        return listOrders(deps.store, caller, orderListQuery(request), deps.clock.now());
      },
      describe({
        tag: "Connector",
        summary: "List orders",
        operationId: "listOrders",
        description: `The orders of this key's shop and environment, newest first (by \`created_at\`, then by \`id\`, both descending), for people: a list of what was ordered and what was paid.

Filter by \`status\`, repeated for several (\`?status=pending&status=expired\`). The status is the one the order reads now: a pending order past \`expires_at\` is \`expired\`, here as in \`GET /connector/v1/orders/{id}\`.

Page with \`next_cursor\` as \`after\` (with the same \`status\`): each page goes on with older orders, without gaps or repeats while the orders keep their \`created_at\`. New orders appear on the first page, not after the last one. To learn which orders were paid, collect matches (\`GET /connector/v1/matches\`) instead: this list is not a feed.`,
        parameters: [OrderStatusParam, afterParam("A `next_cursor` from this list"), LimitParam],
        success: {
          status: 200,
          description: "A page of orders, newest first",
          schema: OrdersPageSchema,
          example: {
            data: [EXAMPLE_PENDING_ORDER, EXAMPLE_ORDER],
            next_cursor: exampleCursors.orders.encode(EXAMPLE_SCOPE, { createdAt: EXAMPLE_ORDER.created_at, id: EXAMPLE_ORDER.id }),
            has_more: false,
          },
        },
        errors: [
          ["invalid_cursor", { errors: [{ field: "/after", message: "not a cursor of this feed" }] }],
          ["invalid_request", { errors: [{ field: "/status", message: '"paid" is not one of pending, matched, cancelled, expired' }] }],
          ...AUTH_ERRORS,
        ],
        security: "connector",
      }),
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
