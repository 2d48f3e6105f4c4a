// The webhook routes of the connector surface (contract §15), under /connector/v1/webhooks.
import { Elysia } from "elysia";
import { authenticateFirst, type Authenticate } from "../connector/auth";
import { EXAMPLE_SCOPE, exampleCursors } from "../connector/cursor";
import type { ConnectorDeps } from "../connector/deps";
import { AUTH_ERRORS, BODY_ERRORS, type ErrorSpec } from "../connector/errors-doc";
import { afterParam, LimitParam, pageQueryWith } from "../connector/query";
import type { AppDeps } from "../deps";
import { jsonBody } from "../http/body";
import { describe } from "../http/openapi";
import { validator } from "../http/validation";
import { getEndpoint, listEndpoints, listMessages, MAX_ENDPOINTS, MESSAGE_STATUSES } from "./endpoints.service";
import {
  CreateEndpointBodySchema,
  DeletedEndpointSchema,
  EndpointListSchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  EXAMPLE_ENDPOINT,
  EXAMPLE_MESSAGE,
  EXAMPLE_SECRET,
  MessageListSchema,
  QueuedMessageSchema,
  RetriedMessageSchema,
  RotatedSecretSchema,
  UpdateEndpointBodySchema,
} from "./model";
import { newWebhookSecret } from "./signature";

export type WebhookDeps = ConnectorDeps & Pick<AppDeps, "secretBox">;

const checkCreate = validator(CreateEndpointBodySchema);
const checkUpdate = validator(UpdateEndpointBodySchema);
const messagesQuery = pageQueryWith(MESSAGE_STATUSES);

const NOT_FOUND: ErrorSpec = ["webhook_not_found", { id: EXAMPLE_ENDPOINT.id }];
const URL_ERROR: ErrorSpec = ["invalid_request", { errors: [{ field: "/url", message: "must be an absolute http:// or https:// URL" }] }];
const ID_PARAM = { name: "id", in: "path", required: true, description: "The endpoint's id (`whe_…`)", schema: { type: "string" } };

/** Routes without a body still authenticate before anything else (a 401 comes first). */
const noBody = (authenticate: Authenticate) => [authenticateFirst(authenticate), () => ({})];

export const webhookRoutes = (deps: WebhookDeps, authenticate: Authenticate) => {
  const scopeOf = (request: Request) => {
    const { tenantId, environment } = authenticate(request);
    return { tenantId, environment };
  };
  return new Elysia()
    .post(
      "/webhooks",
      async ({ request, body, set }) => {
        const scope = scopeOf(request);
        const input = checkCreate(body);
        const secret = newWebhookSecret();
        const sealedSecret = await deps.secretBox.seal(secret);
        const endpoint = await deps.writer.run("createWebhookEndpoint", { scope, input, sealedSecret, now: deps.clock.now() });
        set.status = 201;
        return { ...endpoint, secret };
      },
      {
        parse: [authenticateFirst(authenticate), jsonBody],
        ...describe({
          tag: "Webhooks",
          summary: "Create a webhook endpoint",
          operationId: "createWebhookEndpoint",
          description: `Registers a URL that receives signed messages (see the Webhooks section for how to verify them). The answer holds the endpoint's \`secret\`, **shown this once**: store it in the receiver's configuration. At most ${MAX_ENDPOINTS} endpoints per tenant and environment; a test key makes test endpoints, which receive test-environment events only.`,
          body: CreateEndpointBodySchema,
          bodyExample: { url: EXAMPLE_ENDPOINT.url, events: EXAMPLE_ENDPOINT.events, description: EXAMPLE_ENDPOINT.description },
          success: { status: 201, description: "The endpoint, with its secret", schema: EndpointWithSecretSchema, example: { ...EXAMPLE_ENDPOINT, secret: EXAMPLE_SECRET } },
          errors: [URL_ERROR, ["webhook_limit_reached", { max_endpoints: MAX_ENDPOINTS }], ...AUTH_ERRORS, ...BODY_ERRORS],
          security: "connector",
        }),
      },
    )
    .get("/webhooks", ({ request }) => listEndpoints(deps.store, scopeOf(request)), describe({
      tag: "Webhooks",
      summary: "List webhook endpoints",
      operationId: "listWebhookEndpoints",
      description: "This key's endpoints (its tenant and environment), oldest first. Secrets are never shown again.",
      success: { status: 200, description: "The endpoints", schema: EndpointListSchema, example: { data: [EXAMPLE_ENDPOINT] } },
      errors: [...AUTH_ERRORS],
      security: "connector",
    }))
    .get("/webhooks/:id", ({ request, params }) => getEndpoint(deps.store, scopeOf(request), params.id), describe({
      tag: "Webhooks",
      summary: "Get a webhook endpoint",
      operationId: "getWebhookEndpoint",
      description: "One endpoint, without its secret. `404 webhook_not_found` for an id of another tenant or environment.",
      parameters: [ID_PARAM],
      success: { status: 200, description: "The endpoint", schema: EndpointSchema, example: EXAMPLE_ENDPOINT },
      errors: [NOT_FOUND, ...AUTH_ERRORS],
      security: "connector",
    }))
    .patch(
      "/webhooks/:id",
      async ({ request, params, body }) => {
        const scope = scopeOf(request);
        const patch = checkUpdate(body);
        return deps.writer.run("updateWebhookEndpoint", { scope, id: params.id, patch, now: deps.clock.now() });
      },
      {
        parse: [authenticateFirst(authenticate), jsonBody],
        ...describe({
          tag: "Webhooks",
          summary: "Change a webhook endpoint",
          operationId: "updateWebhookEndpoint",
          description:
            "Changes any of `url`, `events`, `description` and `status`. `status: disabled` stops deliveries (`disabled_reason: manual`); `status: enabled` resumes an endpoint disabled for any reason, and the messages that waited are delivered.",
          parameters: [ID_PARAM],
          body: UpdateEndpointBodySchema,
          bodyExample: { status: "enabled" },
          success: { status: 200, description: "The endpoint as changed", schema: EndpointSchema, example: EXAMPLE_ENDPOINT },
          errors: [NOT_FOUND, URL_ERROR, ...AUTH_ERRORS, ...BODY_ERRORS],
          security: "connector",
        }),
      },
    )
    .delete(
      "/webhooks/:id",
      async ({ request, params }) => deps.writer.run("deleteWebhookEndpoint", { scope: scopeOf(request), id: params.id, now: deps.clock.now() }),
      {
        parse: noBody(authenticate),
        ...describe({
          tag: "Webhooks",
          summary: "Delete a webhook endpoint",
          operationId: "deleteWebhookEndpoint",
          description: "Deletes the endpoint; its undelivered messages are dropped and nothing more is sent to it.",
          parameters: [ID_PARAM],
          success: { status: 200, description: "Deleted", schema: DeletedEndpointSchema, example: { id: EXAMPLE_ENDPOINT.id, deleted: true } },
          errors: [NOT_FOUND, ...AUTH_ERRORS],
          security: "connector",
        }),
      },
    )
    .post(
      "/webhooks/:id/rotate-secret",
      async ({ request, params }) => {
        const scope = scopeOf(request);
        const secret = newWebhookSecret();
        const sealedSecret = await deps.secretBox.seal(secret);
        const { id } = await deps.writer.run("rotateWebhookSecret", { scope, id: params.id, sealedSecret, now: deps.clock.now() });
        return { id, secret };
      },
      {
        parse: noBody(authenticate),
        ...describe({
          tag: "Webhooks",
          summary: "Rotate an endpoint's secret",
          operationId: "rotateWebhookSecret",
          description:
            "Makes a new secret, shown this once. For the next 24 h every message carries two signatures, one with the new secret and one with the previous, so the receiver can switch without losing a message.",
          parameters: [ID_PARAM],
          success: { status: 200, description: "The new secret", schema: RotatedSecretSchema, example: { id: EXAMPLE_ENDPOINT.id, secret: EXAMPLE_SECRET } },
          errors: [NOT_FOUND, ...AUTH_ERRORS],
          security: "connector",
        }),
      },
    )
    .post(
      "/webhooks/:id/test",
      async ({ request, params, set }) => {
        const result = await deps.writer.run("queueWebhookTest", { scope: scopeOf(request), id: params.id, now: deps.clock.now() });
        set.status = 202;
        return result;
      },
      {
        parse: noBody(authenticate),
        ...describe({
          tag: "Webhooks",
          summary: "Send a test message",
          operationId: "sendWebhookTest",
          description:
            "Queues a `webhook.test` message (data: `{\"endpoint_id\"}`) for this endpoint, whatever its `events`; it is delivered at once like any message (a disabled endpoint's waits). Follow it with the list of messages.",
          parameters: [ID_PARAM],
          success: { status: 202, description: "Queued", schema: QueuedMessageSchema, example: { message_id: EXAMPLE_MESSAGE.id } },
          errors: [NOT_FOUND, ...AUTH_ERRORS],
          security: "connector",
        }),
      },
    )
    .get(
      "/webhooks/:id/messages",
      ({ request, params }) => {
        const scope = scopeOf(request);
        const q = messagesQuery(request);
        return listMessages(deps.store, scope, params.id, q);
      },
      describe({
        tag: "Webhooks",
        summary: "List an endpoint's messages",
        operationId: "listWebhookMessages",
        description: "The messages queued for this endpoint in the last 30 days, newest first, with their attempts so far. Page with `next_cursor` as `after`.",
        parameters: [
          ID_PARAM,
          { name: "status", in: "query", required: false, description: "Only messages with this status", schema: { type: "string", enum: [...MESSAGE_STATUSES] } },
          afterParam("A `next_cursor` from this list"),
          LimitParam,
        ],
        success: {
          status: 200,
          description: "A page of messages",
          schema: MessageListSchema,
          example: { data: [EXAMPLE_MESSAGE], next_cursor: exampleCursors.encode("message", EXAMPLE_SCOPE, 1), has_more: false },
        },
        errors: [
          NOT_FOUND,
          ["invalid_cursor", { errors: [{ field: "/after", message: "not a cursor of this feed" }] }],
          ["invalid_request", { errors: [{ field: "/status", message: "Expected union value" }] }],
          ...AUTH_ERRORS,
        ],
        security: "connector",
      }),
    )
    .post(
      "/webhooks/:id/messages/:message_id/retry",
      async ({ request, params, set }) => {
        const result = await deps.writer.run("retryWebhookMessage", {
          scope: scopeOf(request),
          endpointId: params.id,
          messageId: params.message_id,
          now: deps.clock.now(),
        });
        set.status = 202;
        return result;
      },
      {
        parse: noBody(authenticate),
        ...describe({
          tag: "Webhooks",
          summary: "Retry a message",
          operationId: "retryWebhookMessage",
          description:
            "Makes a message pending again and attempts it at once: a failed or pending one, or a succeeded one that the receiver lost. A message of a disabled endpoint waits until the endpoint is enabled.",
          parameters: [ID_PARAM, { name: "message_id", in: "path", required: true, description: "The message's id (`msg_…`)", schema: { type: "string" } }],
          success: { status: 202, description: "Pending again", schema: RetriedMessageSchema, example: { message_id: EXAMPLE_MESSAGE.id, status: "pending" } },
          errors: [NOT_FOUND, ["webhook_message_not_found", { id: EXAMPLE_MESSAGE.id }], ...AUTH_ERRORS],
          security: "connector",
        }),
      },
    );
};
