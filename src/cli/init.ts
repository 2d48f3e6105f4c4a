// `init`, and the first start of `serve` on an empty data dir: a shop, its keys and a first code.
import qrcode from "qrcode-terminal";
import { count } from "drizzle-orm";
import { createActivationCode } from "../device/codes";
import { tenants } from "../store/schema";
import { createTenant } from "../tenants/service";
import type { CommandContext } from "./framework";

export function qr(text: string): Promise<string> {
  return new Promise((res) => qrcode.generate(text, { small: true }, (s) => res(s)));
}

/** `init` and the first start of `serve` on an empty data dir. */
export function initialise(ctx: CommandContext, name: string) {
  const { db } = ctx.store();
  const existing = db.select({ n: count() }).from(tenants).get()!.n;
  if (existing > 0) {
    throw new Error(`${ctx.dataDir} is already initialised; use 'cuadra tenant create --name NAME' for another shop`);
  }
  const tenant = createTenant(db, ctx.clock, name);
  const code = createActivationCode(db, ctx.clock, tenant.tenant_id, "live");
  return { ...tenant, activation_code: code };
}

export async function initHuman(r: ReturnType<typeof initialise>): Promise<string> {
  return [
    `Shop "${r.name}" created (tenant ${r.tenant_id}).`,
    ``,
    `Secret keys for the shop's software (shown once; keep them safe):`,
    `  live: ${r.keys.live}`,
    `  test: ${r.keys.test}`,
    ``,
    `Activation code for the first phone: ${r.activation_code.code}`,
    `  (valid until ${new Date(r.activation_code.expires_at).toISOString()}; make another with 'cuadra code create --tenant ${r.tenant_id} --env live')`,
    await qr(r.activation_code.code),
  ].join("\n");
}

