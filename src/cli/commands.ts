// The commands of contract §1, except `serve` (serve.ts). Each is a thin layer over a service; the
// `--json` documents are the contract's, the human output is for the person at the shop.
import { inArray } from "drizzle-orm";
import { CODE_TTL_DEFAULT_S, CODE_TTL_MAX_S, createActivationCode } from "../device/codes";
import { isOnline } from "../device/model";
import { listDevices, revokeDevice } from "../device/service";
import { ago, localTime, parseInstant } from "../i18n/format";
import type { Db } from "../store/db";
import { devices } from "../store/schema";
import { addNews, createKey, createTenant, getLicense, listKeys, listTenants, revokeKey, setLicense, type License, type NewsLevel } from "../tenants/service";
import { VERSION } from "../version";
import { writes } from "../writes";
import { dataDirPath, readChoice, readDuration, readEnvironment, readInt, requireString, UsageError, type Command, type CommandContext } from "./framework";
import { initHuman, initialise, pairingHuman, qrPngOption, withPairing } from "./init";
import { serveCommand } from "./serve";
import { notificationCommands } from "./notification-commands";
import { webhookCommands } from "./webhook-commands";
import { consoleCommands } from "./console-commands";
import { backupCommands } from "./backup-commands";
import { shopOf, tenantOption } from "./shops";

const envOption = { env: { type: "string", value: "live|test", required: true, description: "cli.opt.env" } } as const;

const when = (ms: number, ctx: CommandContext) => localTime(ms, ctx.lang, ctx.t);

/** The license in words, and what it means for the phones when they are refused. */
function licenseHuman(l: License, ctx: CommandContext): string {
  const { t } = ctx;
  const facts = { plan: l.plan, used: l.devices_in_use, max: l.max_devices };
  if (l.reason === null) {
    return t("cli.license.active", { ...facts, until: l.expires_at === null ? "" : t("cli.license.until", { when: when(l.expires_at, ctx) }) });
  }
  const head = l.reason === "expired" ? t("cli.license.expired", { ...facts, when: when(l.expires_at!, ctx) }) : t("cli.license.suspended", facts);
  return `${head}\n${t("cli.license.refused")}`;
}

interface PhoneHealth {
  battery_level?: number | null;
  charging?: boolean | null;
}

/** The phones with what the list's JSON (contract §1) leaves out: online, battery, last seen in words. */
function devicesHuman(rows: ReturnType<typeof listDevices>, ctx: CommandContext): string {
  const { t } = ctx;
  if (rows.length === 0) return t("cli.devices.empty");
  const now = ctx.clock.now();
  const extra = new Map(
    ctx
      .store()
      .db.select({ id: devices.id, lastHeartbeatAt: devices.lastHeartbeatAt, health: devices.health })
      .from(devices)
      .where(inArray(devices.id, rows.map((r) => r.device_id)))
      .all()
      .map((d) => [d.id, d]),
  );
  return rows
    .map((r) => {
      const d = extra.get(r.device_id);
      const health = (d?.health ? JSON.parse(d.health) : {}) as PhoneHealth;
      const state =
        r.status === "revoked" ? t("cli.devices.revoked") : isOnline(d?.lastHeartbeatAt ?? null, now) ? t("cli.devices.online") : t("cli.devices.offline");
      const battery =
        typeof health.battery_level === "number"
          ? t(health.charging ? "cli.devices.charging" : "cli.devices.battery", { level: Math.round(health.battery_level) })
          : t("cli.devices.no_battery");
      const seen = r.last_seen_at === null ? t("cli.devices.never") : t("cli.devices.seen", { ago: ago(r.last_seen_at, now, t), when: when(r.last_seen_at, ctx) });
      return `${r.label}  (${r.device_id}, ${r.platform}, ${r.environment})\n  ${state} · ${battery} · ${seen}`;
    })
    .join("\n");
}

export const commands: Command[] = [
  serveCommand,
  {
    path: ["init"],
    summary: "cli.cmd.init",
    options: { name: { type: "string", value: "NAME", required: true, description: "cli.opt.shop_name" }, ...qrPngOption },
    createsDataDir: true,
    run: (ctx, o) => initialise(ctx, requireString(o, "name").trim(), o["qr-png"] as string | undefined),
    human: initHuman,
  },
  {
    path: ["tenant", "create"],
    summary: "cli.cmd.tenant_create",
    options: { name: { type: "string", value: "NAME", required: true, description: "cli.opt.shop_name" } },
    createsDataDir: true, // contract §1: the data dir is "created on first use"
    run: (ctx, o) => createTenant(ctx.store().db, ctx.clock, requireString(o, "name").trim()),
    human: (r, { t }) =>
      [t("cli.tenant.created", { name: r.name, id: r.tenant_id }), t("cli.keys.secret"), `  live: ${r.keys.live}`, `  test: ${r.keys.test}`].join("\n"),
  },
  {
    path: ["tenant", "list"],
    summary: "cli.cmd.tenant_list",
    run: (ctx) => listTenants(ctx.store().db),
    human: (rows: ReturnType<typeof listTenants>, ctx) =>
      rows.length === 0
        ? ctx.t("cli.tenants.empty", { path: dataDirPath(ctx) })
        : rows.map((r) => ctx.t("cli.tenants.row", { id: r.tenant_id, name: r.name, when: when(r.created_at, ctx) })).join("\n"),
  },
  {
    path: ["tenant", "rename"],
    summary: "cli.cmd.tenant_rename",
    options: { ...tenantOption, name: { type: "string", value: "NAME", required: true, description: "cli.opt.new_name" } },
    run: (ctx, o) => {
      const name = requireString(o, "name").trim();
      const { db } = ctx.store();
      const tenantId = shopOf(ctx, o);
      // The server's named write (src/writes.ts), on this command's own connection.
      return db.transaction((tx) => writes.renameTenant(tx as unknown as Db, { tenantId, name, now: ctx.clock.now() }), { behavior: "immediate" });
    },
    human: (r, { t }) => t("cli.tenant.renamed", { id: r.tenant_id, name: r.name, old: r.previous_name }),
  },
  {
    path: ["key", "create"],
    summary: "cli.cmd.key_create",
    options: { ...tenantOption, ...envOption },
    run: (ctx, o) => {
      const environment = readEnvironment(o); // options first: a usage error never waits on the data folder
      return createKey(ctx.store().db, ctx.clock, shopOf(ctx, o), environment);
    },
    human: (r, { t }) => `${t("cli.key.created", { environment: r.environment, key: r.key })}\n${t("cli.key.shown_once", { id: r.key_id })}`,
  },
  {
    path: ["key", "list"],
    summary: "cli.cmd.key_list",
    options: { ...tenantOption },
    run: (ctx, o) => listKeys(ctx.store().db, shopOf(ctx, o)),
    human: (rows: ReturnType<typeof listKeys>, ctx) =>
      rows.length === 0
        ? ctx.t("cli.keys.empty")
        : rows
            .map((r) =>
              ctx.t("cli.keys.row", {
                id: r.key_id,
                environment: r.environment,
                prefix: r.prefix,
                last4: r.last4,
                when: when(r.created_at, ctx),
                revoked: r.revoked_at === null ? "" : ctx.t("cli.keys.revoked", { when: when(r.revoked_at, ctx) }),
              }),
            )
            .join("\n"),
  },
  {
    path: ["key", "revoke"],
    summary: "cli.cmd.key_revoke",
    args: ["KEY_ID"],
    run: (ctx, _o, [keyId]) => revokeKey(ctx.store().db, ctx.clock, keyId!),
    human: (r, ctx) => ctx.t("cli.key.revoked", { id: r.key_id, when: when(r.revoked_at, ctx) }),
  },
  {
    path: ["code", "create"],
    summary: "cli.cmd.code_create",
    options: {
      ...tenantOption,
      env: { type: "string", value: "live|test", description: "cli.opt.env_code" },
      ttl: { type: "string", value: "SECONDS", description: "cli.opt.ttl_code" },
      ...qrPngOption,
    },
    run: (ctx, o) => {
      const ttl = readDuration(o, "ttl", CODE_TTL_MAX_S) ?? CODE_TTL_DEFAULT_S;
      const environment = readEnvironment(o, "live");
      const code = createActivationCode(ctx.store().db, ctx.clock, shopOf(ctx, o), environment, ttl);
      return withPairing(ctx, code, o["qr-png"] as string | undefined);
    },
    human: pairingHuman,
  },
  {
    path: ["device", "list"],
    summary: "cli.cmd.device_list",
    options: { ...tenantOption },
    run: (ctx, o) => listDevices(ctx.store().db, shopOf(ctx, o)),
    human: devicesHuman,
  },
  {
    path: ["device", "revoke"],
    summary: "cli.cmd.device_revoke",
    args: ["DEVICE_ID"],
    run: (ctx, _o, [deviceId]) => revokeDevice(ctx.store().db, ctx.clock, deviceId!),
    human: (r, { t }) => t("cli.device.revoked", { id: r.device_id }),
  },
  {
    path: ["license", "show"],
    summary: "cli.cmd.license_show",
    options: { ...tenantOption },
    run: (ctx, o) => getLicense(ctx.store().db, ctx.clock, shopOf(ctx, o)),
    human: licenseHuman,
  },
  {
    path: ["license", "set"],
    summary: "cli.cmd.license_set",
    options: {
      ...tenantOption,
      status: { type: "string", value: "active|suspended", description: "cli.opt.status" },
      plan: { type: "string", value: "NAME", description: "cli.opt.plan" },
      "max-devices": { type: "string", value: "N", description: "cli.opt.max_devices" },
      "expires-at": { type: "string", value: "DATE|MS|none", description: "cli.opt.expires_at" },
    },
    run: (ctx, o) => {
      const status = readChoice(o, "status", ["active", "suspended"] as const);
      const rawExpiry = o["expires-at"] as string | undefined;
      let expiresAt: number | null | undefined;
      if (rawExpiry !== undefined) {
        expiresAt = rawExpiry.trim().toLowerCase() === "none" ? null : parseInstant(rawExpiry);
        if (expiresAt === undefined || (expiresAt === null && rawExpiry.trim().toLowerCase() !== "none")) {
          throw new UsageError("cli.usage.expires_at", { value: rawExpiry });
        }
      }
      const plan = o.plan as string | undefined;
      if (plan !== undefined && plan.trim() === "") throw new UsageError("cli.usage.not_empty", { option: "--plan" });
      const maxDevices = readInt(o, "max-devices", 0, 1_000_000);
      return setLicense(ctx.store().db, ctx.clock, shopOf(ctx, o), { status, plan, maxDevices, expiresAt });
    },
    human: licenseHuman,
  },
  {
    path: ["news", "add"],
    summary: "cli.cmd.news_add",
    options: {
      ...tenantOption,
      title: { type: "string", value: "T", required: true, description: "cli.opt.title" },
      body: { type: "string", value: "B", required: true, description: "cli.opt.body" },
      level: { type: "string", value: "info|warning|critical", description: "cli.opt.level" },
    },
    run: (ctx, o) => {
      const level: NewsLevel = readChoice(o, "level", ["info", "warning", "critical"] as const) ?? "info";
      return addNews(ctx.store().db, ctx.clock, shopOf(ctx, o), { title: requireString(o, "title"), body: requireString(o, "body"), level });
    },
    human: (r, ctx) => ctx.t("cli.news.added", { id: r.news_id, when: when(r.published_at, ctx) }),
  },
  ...webhookCommands,
  ...consoleCommands,
  ...notificationCommands,
  ...backupCommands,
  {
    path: ["version"],
    summary: "cli.cmd.version",
    run: () => ({ version: VERSION }),
    human: (r) => `cuadra ${r.version}`,
  },
];
