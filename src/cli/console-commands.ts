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
import { readInt, requireString, UsageError, type Command, type CommandContext } from "./framework";

export interface ConsoleLink {
  url: string;
  expires_at: number;
}

/** A sign-in link at the address the box answers on (the one the last `serve` recorded). */
export async function consoleLink(ctx: CommandContext, db: Db, tenantId: string, ttlSeconds = LINK_TTL_DEFAULT_S, base?: string): Promise<ConsoleLink> {
  const link = createSignInLink(db, tenantId, ttlSeconds, ctx.clock.now());
  return { url: signInUrl(base ?? (await boxAddress(ctx.dataDir)).url, link.token), expires_at: link.expires_at };
}

export function consoleLinkHuman(r: ConsoleLink): string {
  return [
    `Console sign-in link (works once, until ${new Date(r.expires_at).toISOString()}):`,
    `  ${r.url}`,
    `Open it in the browser of the computer, tablet or phone you want to use, or scan:`,
    qrForTerminal(r.url),
  ].join("\n");
}

export const consoleCommands: Command[] = [
  {
    path: ["console", "link"],
    summary: "Print a one-time link (and its QR code) that signs a browser in to the shop's console",
    options: {
      tenant: { type: "string", value: "ID", required: true, description: "Tenant id (ten_…)" },
      ttl: { type: "string", value: "SECONDS", description: `Validity in seconds (default ${LINK_TTL_DEFAULT_S}, at most ${LINK_TTL_MAX_S})` },
    },
    run: (ctx, o) => consoleLink(ctx, ctx.store().db, requireString(o, "tenant"), readInt(o, "ttl", 1, LINK_TTL_MAX_S)),
    human: consoleLinkHuman,
  },
  {
    path: ["console", "sessions"],
    summary: "List the browsers signed in to a shop's console",
    options: { tenant: { type: "string", value: "ID", required: true, description: "Tenant id (ten_…)" } },
    run: (ctx, o) => listSessions(ctx.store().db, requireString(o, "tenant"), ctx.clock.now()),
  },
  {
    path: ["console", "revoke"],
    summary: "Sign a browser out of the console (SESSION_ID), or every browser of a shop (--all --tenant ID)",
    args: ["[SESSION_ID]"],
    options: {
      all: { type: "boolean", description: "Every session of the shop given with --tenant" },
      tenant: { type: "string", value: "ID", description: "Tenant id (ten_…), with --all" },
    },
    run: (ctx, o, [sessionId]) => {
      const { db } = ctx.store();
      if (o.all) {
        if (sessionId !== undefined) throw new UsageError("give either SESSION_ID or --all --tenant ID, not both");
        return revokeAllSessions(db, requireString(o, "tenant"), ctx.clock.now());
      }
      if (sessionId === undefined) throw new UsageError("give SESSION_ID (see 'cuadra console sessions --tenant ID') or --all --tenant ID");
      return revokeSession(db, sessionId, ctx.clock.now());
    },
  },
];
