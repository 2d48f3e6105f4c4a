// Which shop a command is about. A box almost always has one, so --tenant may be left out; with
// several, the command says which there are. A shop may also be named by its name.
import { listTenants } from "../tenants/service";
import { CliError, UsageError, dataDirPath, type CommandContext, type OptionSpec } from "./framework";

export const tenantOption: Record<string, OptionSpec> = {
  tenant: { type: "string", value: "ID", description: "cli.opt.tenant" },
};

const described = (shops: { tenant_id: string; name: string }[]) => shops.map((s) => `${s.tenant_id} (${s.name})`).join(", ");

/** The tenant id the command is about: --tenant (an id, or a shop's name), else the box's only shop. */
export function shopOf(ctx: CommandContext, opts: Record<string, unknown>): string {
  const shops = listTenants(ctx.store().db);
  const path = dataDirPath(ctx);
  if (typeof opts.tenant === "string" && opts.tenant.trim() === "") throw new UsageError("cli.usage.not_empty", { option: "--tenant" });
  const given = typeof opts.tenant === "string" ? opts.tenant.trim() : "";
  if (given !== "") {
    const byId = shops.find((s) => s.tenant_id === given);
    if (byId) return byId.tenant_id;
    const byName = shops.filter((s) => s.name.trim().toLowerCase() === given.toLowerCase());
    if (byName.length === 1) return byName[0]!.tenant_id;
    if (byName.length > 1) throw new UsageError("cli.usage.tenant_name_ambiguous", { count: byName.length, name: given, shops: described(byName) });
    if (shops.length === 0) throw new CliError("cli.tenant.none", { path });
    throw new CliError("cli.not_found.tenant_list", { id: given, path, shops: described(shops) });
  }
  if (shops.length === 1) return shops[0]!.tenant_id;
  if (shops.length === 0) throw new CliError("cli.tenant.none", { path });
  throw new UsageError("cli.usage.tenant_ambiguous", { count: shops.length, shops: described(shops) });
}
