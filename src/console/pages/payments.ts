// "Pagos" (contract §18): the payments newest first, by status and wallet, and "Asignar": a person
// gives a payment Cuadra would not guess to one of the orders §19 lists as its candidates, through
// the connector's manual match (§10, method "manual").
import { eventWithCandidates } from "../../connector/views.service";
import type { AppDeps } from "../../deps";
import { DomainError } from "../../errors";
import type { MessageKey } from "../../i18n";
import { KNOWN_WALLETS, soles, walletName } from "../../i18n/format";
import type { ConsoleView } from "../context";
import { html } from "../html";
import { csrfField, type Page } from "../layout";
import { ALL_MATCH_STATUSES, newestPayments, type MatchStatus } from "../queries";
import { eventBadge, orderBadge, paymentList, when } from "./parts";
import { LIST_REFRESH_MS } from "./today";

export const PAYMENTS_PAGE = 50;

/** The status filter: its value in the address, its label, the statuses it shows. */
const STATUS_FILTERS: [string, MessageKey, readonly MatchStatus[]][] = [
  ["", "payments.filter.all", ALL_MATCH_STATUSES],
  ["esperan", "payments.filter.waiting", ["unmatched", "ambiguous"]],
  ["emparejados", "status.matched", ["matched"]],
  ["sin-pedido", "status.unmatched", ["unmatched"]],
  ["ambiguos", "status.ambiguous", ["ambiguous"]],
  ["duplicados", "status.duplicate", ["duplicate"]],
];

export function paymentsPage(deps: AppDeps, v: ConsoleView, q: URLSearchParams): Page {
  const { t } = v;
  const assigned = q.get("asignado");
  const done = assigned ? t("payments.assigned", { order: assigned }) : undefined;
  const filter = STATUS_FILTERS.find(([value]) => value === (q.get("estado") ?? "")) ?? STATUS_FILTERS[0]!;
  const wallet = q.get("billetera") || undefined;
  const page = newestPayments(deps.store, v.scope, { statuses: filter[2], source: wallet, before: q.get("antes") ?? undefined, limit: PAYMENTS_PAGE });
  const more = new URLSearchParams({ ...(filter[0] ? { estado: filter[0] } : {}), ...(wallet ? { billetera: wallet } : {}), ...(page.next ? { antes: page.next } : {}) });
  const wallets = wallet && !KNOWN_WALLETS.includes(wallet) ? [...KNOWN_WALLETS, wallet] : KNOWN_WALLETS;
  return {
    title: t("payments.title"),
    section: "payments",
    // A later page (antes=…) stays as it is: new payments belong to the first.
    refresh: q.has("antes") ? undefined : LIST_REFRESH_MS,
    body: html`<h1>${t("payments.title")}</h1>
${done ? html`<div class="banner ok" role="status"><p>${done}</p></div>` : ""}
<form class="filters" method="get" action="/console/pagos">
  <div><label for="estado">${t("payments.filter.status")}</label><select id="estado" name="estado">${STATUS_FILTERS.map(
    ([value, key]) => html`<option value="${value}"${value === filter[0] ? html` selected` : ""}>${t(key)}</option>`,
  )}</select></div>
  <div><label for="billetera">${t("payments.filter.wallet")}</label><select id="billetera" name="billetera"><option value="">${t("payments.filter.all_wallets")}</option>${wallets.map(
    (w) => html`<option value="${w}"${w === wallet ? html` selected` : ""}>${walletName(w)}</option>`,
  )}</select></div>
  <button class="secondary">${t("payments.filter.submit")}</button>
</form>
<div id="payments-live" data-live>
${page.rows.length ? paymentList(v, page.rows) : html`<p class="muted">${t("payments.none")}</p>`}
</div>
${page.next ? html`<p><a href="/console/pagos?${more.toString()}">${t("payments.more")}</a></p>` : ""}`,
  };
}

export function assignPage(deps: AppDeps, v: ConsoleView, eventId: string, deviceId?: string, error?: string): Page {
  const { t } = v;
  const e = eventWithCandidates(deps.store, v.scope, eventId, v.now, deviceId);
  const waiting = e.match_status === "unmatched" || e.match_status === "ambiguous";
  return {
    title: t("assign.title"),
    section: "payments",
    status: error ? 409 : 200,
    body: html`<h1>${t("assign.title")}</h1>
${error ? html`<div class="banner bad" role="alert"><p>${error}</p></div>` : ""}
<div class="card">
  <div class="row"><span>${when(v, e.occurred_at)}</span><span>${walletName(e.source)}</span><span>${e.payer_name ?? "—"}</span><span class="amount">${soles(e.amount)}</span></div>
  <div class="row">${eventBadge(v, e.match_status)}${e.order_id ? html`<span>${t("payments.order")} ${e.order_id}</span>` : ""}</div>
</div>
${waiting
  ? html`<p>${t(e.match_status === "ambiguous" ? "assign.why.ambiguous" : "assign.why.unmatched")} ${t("assign.explain")}</p>
${e.candidates.length
  ? html`<form method="post" action="/console/pagos/${encodeURIComponent(eventId)}">${csrfField(v)}
${e.device_id ? html`<input type="hidden" name="device" value="${e.device_id}">` : ""}
<fieldset><legend>${t("assign.candidates")}</legend>
${e.candidates.map(
  (o) => html`<label><input type="radio" name="order" value="${o.id}" required>
<span><strong>${o.id}</strong> · ${soles(o.expected_amount)} ${o.expected_amount === e.amount ? html`<span class="badge ok">${t("assign.same_amount")}</span>` : ""} ${orderBadge(v, o.status)}<br>
<span class="muted">${o.customer_name ?? ""} ${when(v, o.created_at)}</span></span></label>`,
)}
</fieldset>
<div class="actions"><button>${t("assign.submit")}</button></div>
</form>`
  : html`<p class="muted">${t("assign.none")}</p>`}`
  : html`<p>${t("assign.done_already")}</p>`}
<p><a href="/console/pagos">${t("assign.back")}</a></p>`,
  };
}

/** POST /console/pagos/{event_id}: contract §10's manual match, as `POST /connector/v1/matches` makes it. */
export async function assignPayment(deps: AppDeps, v: ConsoleView, eventId: string, form: URLSearchParams): Promise<Page | string> {
  const orderId = form.get("order");
  const deviceId = form.get("device") ?? undefined;
  if (!orderId) return assignPage(deps, v, eventId, deviceId, v.t("assign.choose"));
  try {
    await deps.writer.run("manualMatch", { scope: v.scope, request: { order_id: orderId, event_id: eventId, ...(deviceId ? { device_id: deviceId } : {}) }, now: v.now });
  } catch (e) {
    if (e instanceof DomainError && e.status === 409) return assignPage(deps, v, eventId, deviceId, e.detail);
    throw e;
  }
  return `/console/pagos?asignado=${encodeURIComponent(orderId)}`;
}
