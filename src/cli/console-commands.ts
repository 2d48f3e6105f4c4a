// `cuadra console link|sessions|revoke` (contract §18): signing in to the merchant's console, on the
// command's own connection (like every command, safe while serve runs; a revocation is read by the
// server on the session's next request).
import { boxAddress } from "../pairing/box-address";
import { qrForTerminal } from "../pairing/qr";
import {
  createSignInLink,
  LINK_TTL_DEFAULT_S,
  LINK_TTL_MAX_S,
  listSessions,
  revokeAllSessions,
  revokeSession,
  signInUrl,
} from "../console/sessions";
import type { Db } from "../store/db";
import { readDuration, UsageError, type Command, type CommandContext } from "./framework";
import { DomainError } from "../errors";
import { duration, localTime } from "../i18n/format";
import { NotFoundError } from "../tenants/service";
import { shopOf, tenantOption } from "./shops";

export interface ConsoleLink {
  url: string;
  expires_at: number;
}

/** A sign-in link at the address the box answers on (the one the last `serve` recorded). */
export async function consoleLink(ctx: CommandContext, db: Db, tenantId: string, ttlSeconds = LINK_TTL_DEFAULT_S, base?: string): Promise<ConsoleLink> {
  const link = createSignInLink(db, tenantId, ttlSeconds, ctx.clock.now());
  return { url: signInUrl(base ?? (await boxAddress(ctx.dataDir)).url, link.token), expires_at: link.expires_at };
}

export function consoleLinkHuman(r: ConsoleLink, ctx: CommandContext): string {
  const { t } = ctx;
  const ttl = duration((r.expires_at - ctx.clock.now()) / 1000, t);
  return [t("cli.link.title", { ttl, until: localTime(r.expires_at, ctx.lang, t) }), `  ${r.url}`, t("cli.link.open"), qrForTerminal(r.url)].join("\n");
}

const sessionsHuman = (rows: ReturnType<typeof listSessions>, ctx: CommandContext) =>
  rows.length === 0
    ? ctx.t("cli.sessions.empty")
    : rows
        .map((r) =>
          ctx.t("cli.sessions.row", {
            id: r.session_id,
            environment: r.environment,
            created: localTime(r.created_at, ctx.lang, ctx.t),
            expires: localTime(r.expires_at, ctx.lang, ctx.t),
            agent: r.user_agent ?? "",
          }),
        )
        .join("\n");

export const consoleCommands: Command[] = [
  {
    path: ["console", "link"],
    summary: "cli.cmd.console_link",
    options: { ...tenantOption, ttl: { type: "string", value: "SECONDS", description: "cli.opt.ttl_link" } },
    run: (ctx, o) => {
      const ttl = readDuration(o, "ttl", LINK_TTL_MAX_S);
      return consoleLink(ctx, ctx.store().db, shopOf(ctx, o), ttl);
    },
    human: consoleLinkHuman,
  },
  {
    path: ["console", "sessions"],
    summary: "cli.cmd.console_sessions",
    options: { ...tenantOption },
    run: (ctx, o) => listSessions(ctx.store().db, shopOf(ctx, o), ctx.clock.now()),
    human: sessionsHuman,
  },
  {
    path: ["console", "revoke"],
    summary: "cli.cmd.console_revoke",
    args: ["[SESSION_ID]"],
    options: { all: { type: "boolean", description: "cli.opt.all" }, ...tenantOption },
    run: (ctx, o, [sessionId]) => {
      if (o.all && sessionId !== undefined) throw new UsageError("cli.usage.revoke_both");
      if (!o.all && sessionId === undefined) throw new UsageError("cli.usage.revoke_neither");
      const { db } = ctx.store();
      if (o.all) return revokeAllSessions(db, shopOf(ctx, o), ctx.clock.now());
      try {
        return revokeSession(db, sessionId!, ctx.clock.now());
      } catch (e) {
        if (e instanceof DomainError && e.code === "console_session_not_found") throw new NotFoundError("session", sessionId);
        throw e;
      }
    },
    human: (r, { t }) => ("revoked" in r ? t("cli.sessions.revoked_all", { count: r.revoked, id: r.tenant_id }) : t("cli.session.revoked", { id: r.session_id })),
  },
];
