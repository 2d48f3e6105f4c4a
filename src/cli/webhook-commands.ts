// `cuadra webhook add|list|remove` (contract §15): the same services as the connector routes, on
// the command's own connection (like every command, safe while serve runs).
import { and, eq, isNull } from "drizzle-orm";
import { DomainError } from "../errors";
import type { Db } from "../store/db";
import { webhookEndpoints } from "../store/schema";
import { createSecretBox, loadMasterKey } from "../store/secret-box";
import { getTenant, NotFoundError } from "../tenants/service";
import { createEndpoint, deleteEndpoint, endpointView } from "../webhooks/endpoints.service";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../webhooks/outbox";
import { newWebhookSecret } from "../webhooks/signature";
import { readEnvironment, requireString, UsageError, type Command } from "./framework";
import { shopOf, tenantOption } from "./shops";
import type { Translate } from "../i18n";

function readEvents(o: Record<string, unknown>): WebhookEventType[] | undefined {
  const raw = o.events as string | undefined;
  if (raw === undefined) return undefined;
  const list = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const unknown = list.filter((s) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(s));
  if (list.length === 0 || unknown.length > 0) {
    const types = WEBHOOK_EVENT_TYPES.join(", ");
    throw unknown.length ? new UsageError("cli.usage.events_unknown", { types, unknown: unknown.join(", ") }) : new UsageError("cli.usage.events", { types });
  }
  return list as WebhookEventType[];
}

const human = (e: ReturnType<typeof endpointView>, t: Translate) =>
  `${e.id}  ${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ""}  ${e.url}\n  ${t("cli.webhooks.events", { events: e.events.join(", ") })}`;

export const webhookCommands: Command[] = [
  {
    path: ["webhook", "add"],
    summary: "cli.cmd.webhook_add",
    options: {
      ...tenantOption,
      env: { type: "string", value: "live|test", required: true, description: "cli.opt.env" },
      url: { type: "string", value: "URL", required: true, description: "cli.opt.url" },
      events: { type: "string", value: "a,b", description: "cli.opt.events" },
    },
    run: async (ctx, o) => {
      const environment = readEnvironment(o);
      const url = requireString(o, "url");
      const events = readEvents(o);
      const tenantId = shopOf(ctx, o);
      const db = ctx.store().db;
      getTenant(db, tenantId);
      const secret = newWebhookSecret();
      const sealed = await (await createSecretBox(loadMasterKey(ctx.dataDir))).seal(secret);
      try {
        const endpoint = db.transaction((tx) => createEndpoint(tx as unknown as Db, { tenantId, environment }, { url, events }, sealed, ctx.clock.now()));
        return { ...endpoint, secret };
      } catch (e) {
        if (e instanceof DomainError && e.code === "invalid_request") throw new UsageError("cli.usage.webhook_url", { value: url });
        throw e;
      }
    },
    human: (r, { t }) => `${human(r, t)}\n  ${t("cli.webhooks.secret", { secret: r.secret })}\n${t("cli.webhooks.secret_once")}`,
  },
  {
    path: ["webhook", "list"],
    summary: "cli.cmd.webhook_list",
    options: { ...tenantOption },
    run: (ctx, o) => {
      const tenantId = shopOf(ctx, o);
      const db = ctx.store().db;
      getTenant(db, tenantId);
      return db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.tenantId, tenantId), isNull(webhookEndpoints.deletedAt)))
        .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id)
        .all()
        .map((e) => ({ ...endpointView(e), environment: e.environment }));
    },
    human: (rows: (ReturnType<typeof endpointView> & { environment: string })[], { t }) =>
      rows.length === 0 ? t("cli.webhooks.empty") : rows.map((r) => `${human(r, t)}\n  ${t("cli.webhooks.environment", { environment: r.environment })}`).join("\n"),
  },
  {
    path: ["webhook", "remove"],
    summary: "cli.cmd.webhook_remove",
    args: ["ENDPOINT_ID"],
    run: (ctx, _o, [id]) => {
      const db = ctx.store().db;
      const row = db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id!)).get();
      if (!row || row.deletedAt !== null) throw new NotFoundError("webhook", id!);
      return db.transaction((tx) => deleteEndpoint(tx as unknown as Db, row, id!, ctx.clock.now()));
    },
    human: (r, { t }) => t("cli.webhooks.removed", { id: r.id }),
  },
];
