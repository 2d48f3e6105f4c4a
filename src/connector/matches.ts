// The matches feed and its acknowledgement (contract §11); manual matches (§10).
import { Elysia } from "elysia";
import { jsonBody } from "../http/body";
import { describe } from "../http/openapi";
import { validator } from "../http/validation";
import { authenticateFirst, type Authenticate } from "./auth";
import { EXAMPLE_SCOPE, exampleCursors } from "./cursor";
import type { ConnectorDeps } from "./deps";
import { AUTH_ERRORS, BODY_ERRORS, type ErrorSpec } from "./errors-doc";
import { readFeed } from "./matches.service";
import {
  AckBodySchema,
  AckResponseSchema,
  EXAMPLE_MATCH,
  FeedResponseSchema,
  ManualMatchBodySchema,
  MatchSchema,
} from "./model";
import { afterParam, LimitParam, pageQuery } from "./query";

const checkAck = validator(AckBodySchema);
const checkManual = validator(ManualMatchBodySchema);

const INVALID_CURSOR: ErrorSpec = ["invalid_cursor", { errors: [{ field: "/after", message: "not a cursor of this feed" }] }];

export const matchRoutes = (deps: ConnectorDeps, authenticate: Authenticate) =>
  new Elysia()
    .get(
      "/matches",
      ({ request }) => {
        const caller = authenticate(request);
        const q = pageQuery(request);
        return readFeed(deps.store, caller, q.after, q.limit);
      },
      describe({
        tag: "Connector",
        summary: "Collect matches",
        operationId: "listMatches",
        description: `Matches in commit order. Delivery is at least once: process each match (mark the order paid), deduplicating by \`id\`, then acknowledge with \`POST /connector/v1/matches/ack\`.

Without \`after\` the feed starts after the last acknowledged cursor of this key's tenant and environment (from the start when none), so a connector that crashed before acknowledging simply polls again and gets the same matches. With \`after\` it pages from that cursor. \`next_cursor\` is the position after the last match returned (or \`after\` itself when there is nothing new); \`has_more\` says whether to fetch again right away.`,
        parameters: [afterParam("A cursor from this feed (a match's `cursor` or a `next_cursor`)"), LimitParam],
        success: {
          status: 200,
          description: "A page of matches",
          schema: FeedResponseSchema,
          example: { data: [EXAMPLE_MATCH], next_cursor: EXAMPLE_MATCH.cursor, has_more: false },
        },
        errors: [INVALID_CURSOR, ["invalid_request", { errors: [{ field: "/limit", message: "must be from 1 to 500" }] }], ...AUTH_ERRORS],
        security: "connector",
      }),
    )
    .post(
      "/matches/ack",
      async ({ request, body }) => {
        const { tenantId, environment } = authenticate(request);
        const { through } = checkAck(body);
        return deps.writer.run("acknowledgeMatches", { scope: { tenantId, environment }, through, now: deps.clock.now() });
      },
      {
        parse: [authenticateFirst(authenticate), jsonBody],
        ...describe({
          tag: "Connector",
          summary: "Acknowledge matches",
          operationId: "acknowledgeMatches",
          description:
            "Records that every match up to and including `through` has been processed. Monotonic and idempotent: an older cursor changes nothing, and the answer is always the newest acknowledged cursor.",
          body: AckBodySchema,
          bodyExample: { through: EXAMPLE_MATCH.cursor },
          success: {
            status: 200,
            description: "The newest acknowledged cursor",
            schema: AckResponseSchema,
            example: { acknowledged_through: EXAMPLE_MATCH.cursor },
          },
          errors: [
            ["invalid_cursor", { errors: [{ field: "/through", message: "not a cursor of this feed" }] }],
            ["invalid_request", { errors: [{ field: "/through", message: "Expected required property" }] }],
            ...AUTH_ERRORS,
            ...BODY_ERRORS,
          ],
          security: "connector",
        }),
      },
    )
    .post(
      "/matches",
      async ({ request, body, set }) => {
        const { tenantId, environment } = authenticate(request);
        const req = checkManual(body);
        const match = await deps.writer.run("manualMatch", { scope: { tenantId, environment }, request: req, now: deps.clock.now() });
        set.status = 201;
        return match;
      },
      {
        parse: [authenticateFirst(authenticate), jsonBody],
        ...describe({
          tag: "Connector",
          summary: "Match by hand",
          operationId: "createManualMatch",
          description: `A person's decision: matches an unmatched or ambiguous payment event to a pending or expired order, whatever the amounts (\`method: manual\`). The match appears in the feed like any other.

\`409 already_matched\` when either side is already matched (the existing match is in \`match\`), \`409 order_cancelled\` for a cancelled order (re-sync it as pending first), \`409 event_is_duplicate\` for another phone's report of a payment (match the first report, \`duplicate_of\`). Find events with \`GET /connector/v1/events?status=ambiguous\`.`,
          body: ManualMatchBodySchema,
          bodyExample: { order_id: "A-1042", event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b" },
          success: { status: 201, description: "The match", schema: MatchSchema, example: { ...EXAMPLE_MATCH, method: "manual", cursor: exampleCursors.encode("match", EXAMPLE_SCOPE, 2) } },
          errors: [
            ["order_not_found", { order_id: "A-1042" }],
            ["event_not_found", { event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b" }],
            ["already_matched", { order_id: "A-1042", event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b", match: EXAMPLE_MATCH }],
            ["order_cancelled", { order_id: "A-1042" }],
            ["event_is_duplicate", { event_id: "0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b", duplicate_of: "9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f" }],
            ["invalid_request", { errors: [{ field: "/order_id", message: "Expected required property" }] }],
            ...AUTH_ERRORS,
            ...BODY_ERRORS,
          ],
          security: "connector",
        }),
      },
    );
