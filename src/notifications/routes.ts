// GET /connector/v1/notifications (contract §16): what the phones' notifications were, for the shop
// to see which ones the box could not read.
import { Elysia } from "elysia";
import type { Authenticate } from "../connector/auth";
import { EXAMPLE_SCOPE, exampleCursors } from "../connector/cursor";
import type { ConnectorDeps } from "../connector/deps";
import { AUTH_ERRORS } from "../connector/errors-doc";
import { afterParam, LimitParam, pageQueryWith } from "../connector/query";
import { describe } from "../http/openapi";
import { NOTIFICATION_STATUSES, NotificationsPageSchema } from "./model";
import { listNotifications } from "./views";

const notificationsQuery = pageQueryWith(NOTIFICATION_STATUSES);

const EXAMPLE = {
  event_id: "7c1e0f2a-5b3d-4e6f-8a9b-0c1d2e3f4a56",
  device_id: "dev_3kR8sT1vWz7Hq2LmX9dK",
  package: "com.bcp.innovacxion.yapeapp",
  title: "Yape",
  text: "Sensitive notification content hidden",
  status: "unrecognized",
  format: "android.redacted",
  occurred_at: 1795262395000,
  received_at: 1795262400120,
};

export const notificationRoutes = (deps: ConnectorDeps, authenticate: Authenticate) =>
  new Elysia().get(
    "/notifications",
    ({ request }) => {
      const caller = authenticate(request);
      const q = notificationsQuery(request);
      return listNotifications(deps.store, caller, q.status, q.after, q.limit);
    },
    describe({
      tag: "Connector",
      summary: "List notifications the phones sent",
      operationId: "listNotifications",
      description: `The wallet notifications that phones sent for the box to read (\`notification.posted\` events), in the order they were stored, with what the box read: \`payment\` (stored and matched as a payment: see GET /connector/v1/events), \`not_a_payment\` (a wallet's notification that is not money received; its \`title\` and \`text\` are \`null\`, they are not kept) or \`unrecognized\` (kept with its text).

**Unrecognised notifications** are read again at every start of the box (and by \`cuadra notifications reparse\`): once the box knows their format, a payment at most 30 days old is stored and matched with its \`event_id\` and phone, and the row reads \`payment\`. \`format: "android.redacted"\` means Android hid the text from the Cuadra app (Android 15 and later): that phone can lose payments; allow the app to read sensitive notifications (see the README). To report a wallet text the box does not read, send its \`package\`, \`title\` and \`text\` as shown here.

Page with \`next_cursor\` as \`after\`. A notification read again keeps its place in this order: one that became a payment after you paged past it shows in GET /connector/v1/events (and the matches feed) as a new payment, not again here.`,
      parameters: [
        { name: "status", in: "query", required: false, description: "Only notifications the box read as this", schema: { type: "string", enum: [...NOTIFICATION_STATUSES] } },
        afterParam("A `next_cursor` from this list"),
        LimitParam,
      ],
      success: {
        status: 200,
        description: "A page of notifications",
        schema: NotificationsPageSchema,
        example: { data: [EXAMPLE], next_cursor: exampleCursors.encode("notification", EXAMPLE_SCOPE, 9), has_more: false },
      },
      errors: [
        ["invalid_cursor", { errors: [{ field: "/after", message: "not a cursor of this feed" }] }],
        ["invalid_request", { errors: [{ field: "/status", message: "Expected union value" }] }],
        ...AUTH_ERRORS,
      ],
      security: "connector",
    }),
  );
