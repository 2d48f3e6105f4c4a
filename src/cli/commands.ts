// The commands of contract §1, except `serve` (serve.ts). Each is a thin layer over a service.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { CODE_TTL_DEFAULT_S, CODE_TTL_MAX_S, createActivationCode } from "../device/codes";
import { listDevices, revokeDevice } from "../device/service";
import {
  addNews,
  createKey,
  createTenant,
  getLicense,
  listKeys,
  listTenants,
  revokeKey,
  setLicense,
  type NewsLevel,
} from "../tenants/service";
import { VERSION } from "../version";
import { readEnvironment, readInt, requireString, UsageError, type Command } from "./framework";
import { initHuman, initialise, pairingHuman, qrPngOption, withPairing } from "./init";
import { serveCommand } from "./serve";
import { notificationCommands } from "./notification-commands";
import { webhookCommands } from "./webhook-commands";
import { consoleCommands } from "./console-commands";

const tenantOpt = { tenant: { type: "string", value: "ID", required: true, description: "Tenant id (ten_…)" } } as const;
const envOpt = { env: { type: "string", value: "live|test", required: true, description: "Environment" } } as const;

export const commands: Command[] = [
  serveCommand,
  {
    path: ["init"],
    summary: "First run: create the data dir, a shop (tenant) and an activation code for its first phone",
    options: { name: { type: "string", value: "NAME", required: true, description: "Name of the shop" }, ...qrPngOption },
    run: (ctx, o) => initialise(ctx, requireString(o, "name"), o["qr-png"] as string | undefined),
    human: initHuman,
  },
  {
    path: ["tenant", "create"],
    summary: "Create a tenant (a shop) with one live and one test key",
    options: { name: { type: "string", value: "NAME", required: true, description: "Name of the shop" } },
    run: (ctx, o) => createTenant(ctx.store().db, ctx.clock, requireString(o, "name")),
    human: (r) =>
      `tenant_id: ${r.tenant_id}\nname: ${r.name}\nlive key: ${r.keys.live}\ntest key: ${r.keys.test}\n(the keys are shown this once only)`,
  },
  {
    path: ["tenant", "list"],
    summary: "List tenants",
    run: (ctx) => listTenants(ctx.store().db),
  },
  {
    path: ["key", "create"],
    summary: "Create a connector key for a tenant and environment (shown once)",
    options: { ...tenantOpt, ...envOpt },
    run: (ctx, o) => createKey(ctx.store().db, ctx.clock, requireString(o, "tenant"), readEnvironment(o)),
  },
  {
    path: ["key", "list"],
    summary: "List a tenant's connector keys (never the keys themselves)",
    options: { ...tenantOpt },
    run: (ctx, o) => listKeys(ctx.store().db, requireString(o, "tenant")),
  },
  {
    path: ["key", "revoke"],
    summary: "Revoke a connector key; it stops working at once",
    args: ["KEY_ID"],
    run: (ctx, _o, [keyId]) => revokeKey(ctx.store().db, ctx.clock, keyId!),
  },
  {
    path: ["code", "create"],
    summary: "Create a one-time activation code to link a phone",
    options: {
      ...tenantOpt,
      ...envOpt,
      ttl: { type: "string", value: "SECONDS", description: `Validity in seconds (default ${CODE_TTL_DEFAULT_S}, at most ${CODE_TTL_MAX_S})` },
      ...qrPngOption,
    },
    run: (ctx, o) => {
      const ttl = readInt(o, "ttl", 1, CODE_TTL_MAX_S) ?? CODE_TTL_DEFAULT_S;
      const code = createActivationCode(ctx.store().db, ctx.clock, requireString(o, "tenant"), readEnvironment(o), ttl);
      return withPairing(ctx, code, o["qr-png"] as string | undefined);
    },
    human: pairingHuman,
  },
  {
    path: ["device", "list"],
    summary: "List a tenant's phones",
    options: { ...tenantOpt },
    run: (ctx, o) => listDevices(ctx.store().db, requireString(o, "tenant")),
  },
  {
    path: ["device", "revoke"],
    summary: "Revoke a phone; its requests are refused within a second",
    args: ["DEVICE_ID"],
    run: (ctx, _o, [deviceId]) => revokeDevice(ctx.store().db, ctx.clock, deviceId!),
  },
  {
    path: ["license", "show"],
    summary: "Show a tenant's license",
    options: { ...tenantOpt },
    run: (ctx, o) => getLicense(ctx.store().db, ctx.clock, requireString(o, "tenant")),
  },
  {
    path: ["license", "set"],
    summary: "Change a tenant's license",
    options: {
      ...tenantOpt,
      status: { type: "string", value: "active|suspended", description: "Suspend or reactivate" },
      plan: { type: "string", value: "NAME", description: "Plan name" },
      "max-devices": { type: "string", value: "N", description: "Most phones at once (non-revoked, both environments)" },
      "expires-at": { type: "string", value: "MS|none", description: "Expiry in epoch ms, or none" },
    },
    run: (ctx, o) => {
      const status = o.status as string | undefined;
      if (status !== undefined && status !== "active" && status !== "suspended") {
        throw new UsageError(`--status must be active or suspended, not '${status}'`);
      }
      const rawExpiry = o["expires-at"] as string | undefined;
      let expiresAt: number | null | undefined;
      if (rawExpiry === "none") expiresAt = null;
      else expiresAt = readInt(o, "expires-at", 0, 8_640_000_000_000_000);
      const plan = o.plan as string | undefined;
      if (plan !== undefined && plan.trim() === "") throw new UsageError("--plan must not be empty");
      return setLicense(ctx.store().db, ctx.clock, requireString(o, "tenant"), {
        status,
        plan,
        maxDevices: readInt(o, "max-devices", 0, 1_000_000),
        expiresAt,
      });
    },
  },
  {
    path: ["news", "add"],
    summary: "Publish a news item to a tenant's phones (delivered with heartbeats)",
    options: {
      ...tenantOpt,
      title: { type: "string", value: "T", required: true, description: "Title" },
      body: { type: "string", value: "B", required: true, description: "Text" },
      level: { type: "string", value: "info|warning|critical", description: "Default info" },
    },
    run: (ctx, o) => {
      const level = (o.level as string | undefined) ?? "info";
      if (!["info", "warning", "critical"].includes(level)) throw new UsageError(`--level must be info, warning or critical`);
      return addNews(ctx.store().db, ctx.clock, requireString(o, "tenant"), {
        title: requireString(o, "title"),
        body: requireString(o, "body"),
        level: level as NewsLevel,
      });
    },
  },
  ...webhookCommands,
  ...consoleCommands,
  ...notificationCommands,
  {
    path: ["backup"],
    summary: "Write a consistent copy of the database (safe while the server runs)",
    options: { to: { type: "string", value: "FILE", required: true, description: "Destination file (must not exist)" } },
    run: (ctx, o) => {
      const file = resolve(requireString(o, "to"));
      if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
      // VACUUM INTO reads one snapshot, so concurrent writers neither block nor tear the copy.
      ctx.store().sqlite.run("VACUUM INTO ?", [file]);
      return { file, bytes: statSync(file).size };
    },
    human: (r) =>
      `Backup written: ${r.file} (${r.bytes} bytes)\nKeep master.key from the data dir with it: phones' secrets cannot be read without it.`,
  },
  {
    path: ["version"],
    summary: "Print the version",
    run: () => ({ version: VERSION }),
    human: (r) => `cuadra ${r.version}`,
  },
];
