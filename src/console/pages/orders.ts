// "Pedidos" (contract §18): the orders newest first with their status and match, from the
// connector's own list (§19).
import { listOrders } from "../../connector/orders.service";
import type { AppDeps } from "../../deps";
import type { MessageKey } from "../../i18n";
import { soles, walletName } from "../../i18n/format";
import type { ConsoleView } from "../context";
import { html } from "../html";
import type { Page } from "../layout";
import { orderBadge, when } from "./parts";
import { LIST_REFRESH_MS } from "./today";

export const ORDERS_PAGE = 50;

type OrderStatus = "pending" | "matched" | "cancelled" | "expired";
const STATUS_FILTERS: [string, MessageKey, OrderStatus[]][] = [
  ["", "payments.filter.all", []],
  ["pendientes", "order.pending", ["pending"]],
  ["pagados", "order.matched", ["matched"]],
  ["vencidos", "order.expired", ["expired"]],
  ["cancelados", "order.cancelled", ["cancelled"]],
];

export function ordersPage(deps: AppDeps, v: ConsoleView, q: URLSearchParams): Page {
  const { t } = v;
  const filter = STATUS_FILTERS.find(([value]) => value === (q.get("estado") ?? "")) ?? STATUS_FILTERS[0]!;
  const after = q.get("despues") ?? undefined;
  const page = listOrders(deps.store, v.scope, { statuses: filter[2], after, limit: ORDERS_PAGE }, v.now);
  const more = new URLSearchParams({ ...(filter[0] ? { estado: filter[0] } : {}), despues: page.next_cursor });
  return {
    title: t("orders.title"),
    section: "orders",
    refresh: after ? undefined : LIST_REFRESH_MS,
    body: html`<h1>${t("orders.title")}</h1>
<form class="filters" method="get" action="/console/pedidos">
  <div><label for="estado">${t("payments.filter.status")}</label><select id="estado" name="estado">${STATUS_FILTERS.map(
    ([value, key]) => html`<option value="${value}"${value === filter[0] ? html` selected` : ""}>${t(key)}</option>`,
  )}</select></div>
  <button class="secondary">${t("orders.filter.submit")}</button>
</form>
<div id="orders-live" data-live>
${page.data.length
  ? html`<ul class="list">${page.data.map(
      (o) => html`<li>
<div class="row"><strong>${o.id}</strong>${orderBadge(v, o.status)}<span class="amount">${soles(o.expected_amount)}</span></div>
<div class="row muted"><span>${when(v, o.created_at)}</span>${o.customer_name ? html`<span>${o.customer_name}</span>` : ""}${o.expected_amount !== o.amount ? html`<span>${t("orders.amount")} ${soles(o.amount)}</span>` : ""}</div>
${o.match ? html`<div class="row"><span>${t("orders.match")}: ${t("orders.matched_by", { name: o.match.payer_name ?? "—", wallet: walletName(o.match.source) })} · ${when(v, o.match.matched_at)}${o.match.method === "manual" ? html` · ${t("orders.manual")}` : ""}</span></div>` : ""}
</li>`,
    )}</ul>`
  : html`<p class="muted">${t("orders.none")}</p>`}
</div>
${page.has_more ? html`<p><a href="/console/pedidos?${more.toString()}">${t("orders.more")}</a></p>` : ""}`,
  };
}
