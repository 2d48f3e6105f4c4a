// `init`, and the first start of `serve` on an empty data dir: a shop, its keys and a first code;
// and how an activation code is shown to a person (contract §17: with its pairing URI and QR code).
import { count } from "drizzle-orm";
import { createActivationCode } from "../device/codes";
import { boxAddress, type BoxAddress } from "../pairing/box-address";
import { qrForTerminal, writeQrPng } from "../pairing/qr";
import { pairingUri } from "../pairing/uri";
import { tenants } from "../store/schema";
import { createTenant } from "../tenants/service";
import { CliError, dataDirPath, type CommandContext, type OptionSpec } from "./framework";
import { duration, localTime } from "../i18n/format";
import { consoleLink, consoleLinkHuman } from "./console-commands";
import { LINK_TTL_DEFAULT_S } from "../console/sessions";

type ActivationCode = ReturnType<typeof createActivationCode>;
export type PairingCode = ActivationCode & { pairing_uri: string };

export const qrPngOption: Record<string, OptionSpec> = {
  "qr-png": { type: "string", value: "FILE", description: "cli.opt.qr_png" },
};

/**
 * The code with its pairing URI; `address` is where the server listens when `serve` asks, else the
 * one the last `serve` recorded. With --qr-png, the QR code is written to that file as well.
 */
export async function withPairing(ctx: CommandContext, code: ActivationCode, qrPng?: string, address?: BoxAddress): Promise<PairingCode> {
  const { url, fp } = address ?? (await boxAddress(ctx.dataDir));
  const pairing_uri = pairingUri({ url, code: code.code, fp });
  if (qrPng) await writeQrPng(pairing_uri, qrPng);
  return { ...code, pairing_uri };
}

/** What a person reads: the code to type, how long it works, the URI the QR code holds, and the code to scan. */
export function pairingHuman(r: PairingCode, ctx: CommandContext): string {
  const { t } = ctx;
  const ttl = duration((r.expires_at - ctx.clock.now()) / 1000, t);
  return [
    t("cli.code.line", { code: r.code, environment: r.environment, ttl, until: localTime(r.expires_at, ctx.lang, t) }),
    t("cli.code.scan", { host: new URL(new URL(r.pairing_uri).searchParams.get("url")!).host }),
    qrForTerminal(r.pairing_uri),
    t("cli.code.uri", { uri: r.pairing_uri }),
  ].join("\n");
}

/** `init` and the first start of `serve` on an empty data dir. */
export async function initialise(ctx: CommandContext, name: string, qrPng?: string, address?: BoxAddress) {
  const { db } = ctx.store();
  const existing = db.select({ n: count() }).from(tenants).get()!.n;
  if (existing > 0) {
    throw new CliError("cli.init.already", { path: dataDirPath(ctx) });
  }
  const tenant = createTenant(db, ctx.clock, name);
  const code = await withPairing(ctx, createActivationCode(db, ctx.clock, tenant.tenant_id, "live"), qrPng, address);
  const console_link = await consoleLink(ctx, db, tenant.tenant_id, LINK_TTL_DEFAULT_S, address?.url);
  // pairing_uri at the top as well: contract §17 says init's --json "adds pairing_uri".
  return { ...tenant, activation_code: code, pairing_uri: code.pairing_uri, console_link };
}

export function initHuman(r: Awaited<ReturnType<typeof initialise>>, ctx: CommandContext): string {
  const { t } = ctx;
  return [
    t("cli.tenant.created", { name: r.name, id: r.tenant_id }),
    ``,
    t("cli.keys.secret"),
    `  live: ${r.keys.live}`,
    `  test: ${r.keys.test}`,
    ``,
    t("cli.init.first_phone"),
    pairingHuman(r.activation_code, ctx),
    t("cli.init.another_code"),
    ``,
    t("cli.init.console"),
    consoleLinkHuman(r.console_link, ctx),
    t("cli.init.another_link"),
  ].join("\n");
}
