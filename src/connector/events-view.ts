// GET /connector/v1/events: the reconciliation view of payment events (contract §12); and
// GET /connector/v1/events/{event_id}: one payment with the orders a person could give it to (§19).
import { Elysia } from "elysia";
import { describe } from "../http/openapi";
import type { Authenticate } from "./auth";
import type { ConnectorDeps } from "./deps";
import { AUTH_ERRORS } from "./errors-doc";
import { CANDIDATES_DOC, EventsPageSchema, EXAMPLE_EVENT_VIEW, EXAMPLE_PAYMENT_WITH_CANDIDATES, PaymentWithCandidatesSchema } from "./model";
import { afterParam, DeviceIdParam, deviceIdQuery, LimitParam, pageQuery, StatusParam } from "./query";
import { eventWithCandidates, listEvents } from "./views.service";
import { EXAMPLE_SCOPE, exampleCursors } from "./cursor";

export const eventViewRoutes = (deps: ConnectorDeps, authenticate: Authenticate) =>
  new Elysia().get(
    "/events",
    ({ request }) => {
      const caller = authenticate(request);
      const q = pageQuery(request);
      return listEvents(deps.store, caller, q.status, q.after, q.limit);
    },
    describe({
      tag: "Connector",
      summary: "List payment events",
      operationId: "listEvents",
      description: `Every payment the phones (and test payments) reported, in the order they were stored, with what matching made of them:
\`matched\` (with \`order_id\`), \`unmatched\` (no pending order fits yet), \`ambiguous\` (several fit and the rules cannot tell them apart: match by hand with \`POST /connector/v1/matches\`) or \`duplicate\` (another phone's report of a payment already stored, \`duplicate_of\`).

Unmatched and ambiguous events wait: they are evaluated again when an order is synced, cancelled or expires. Page with \`next_cursor\` as \`after\`.`,
      parameters: [StatusParam, afterParam("A `next_cursor` from this view"), LimitParam],
      success: {
        status: 200,
        description: "A page of events",
        schema: EventsPageSchema,
        example: { data: [EXAMPLE_EVENT_VIEW], next_cursor: exampleCursors.encode("event", EXAMPLE_SCOPE, 17), has_more: false },
      },
      errors: [
        ["invalid_cursor", { errors: [{ field: "/after", message: "not a cursor of this feed" }] }],
        ["invalid_request", { errors: [{ field: "/status", message: "Expected union value" }] }],
        ...AUTH_ERRORS,
      ],
      security: "connector",
    }),
  )
    .get(
      "/events/:event_id",
      ({ request, params }) => {
        const caller = authenticate(request);
        return eventWithCandidates(deps.store, caller, params.event_id ?? "", deps.clock.now(), deviceIdQuery(request));
      },
      describe({
        tag: "Connector",
        summary: "Get a payment and its candidate orders",
        operationId: "getEvent",
        description: `One payment event, as in \`GET /connector/v1/events\`, with \`candidates\`: the orders a person could give it to with \`POST /connector/v1/matches\`.

${CANDIDATES_DOC}

An \`event_id\` of another shop or environment is \`404 event_not_found\`, as one that does not exist.`,
        parameters: [
          { name: "event_id", in: "path", required: true, description: "The payment's `event_id`, as in `GET /connector/v1/events`", schema: { type: "string" } },
          DeviceIdParam,
        ],
        success: { status: 200, description: "The payment and its candidates", schema: PaymentWithCandidatesSchema, example: EXAMPLE_PAYMENT_WITH_CANDIDATES },
        errors: [
          ["event_not_found", { event_id: EXAMPLE_EVENT_VIEW.event_id }],
          ["invalid_request", { errors: [{ field: "/device_id", message: "required: dev_3kR8sT1vWz7Hq2LmX9dK, dev_9pQ2wE5rT8yU1iO4aS7d all sent this event_id" }] }],
          ...AUTH_ERRORS,
        ],
        security: "connector",
      }),
    );
