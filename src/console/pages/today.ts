// "Hoy" (contract §18): today's payments in the box's time zone (count and sum, matched, waiting
// for a person, by wallet) and the phones that went quiet, as a warning until they are back.
import { listDevices } from "../../connector/views.service";
import { soles, startOfLocalDay, walletName } from "../../i18n/format";
import type { AppDeps } from "../../deps";
import type { ConsoleView } from "../context";
import { html } from "../html";
import type { Page } from "../layout";
import { daySummary, newestPayments } from "../queries";
import { offlineWarning, paymentList } from "./parts";

export const LIST_REFRESH_MS = 3000;

export function todayPage(deps: AppDeps, v: ConsoleView): Page {
  const { t } = v;
  const day = daySummary(deps.store, v.scope, startOfLocalDay(v.now), v.now);
  const phones = listDevices(deps.store, v.scope, v.now).data;
  const latest = newestPayments(deps.store, v.scope, { statuses: ["matched", "unmatched", "ambiguous"], limit: 5 }).rows;
  const wallets = day.wallets.length
    ? html`<div class="scroll"><table>
<thead><tr><th scope="col">${t("today.wallet")}</th><th scope="col" class="num">${t("today.count")}</th><th scope="col" class="num">${t("today.total")}</th></tr></thead>
<tbody>${day.wallets.map((w) => html`<tr><td>${walletName(w.source)}</td><td class="num">${w.count}</td><td class="num">${soles(w.total)}</td></tr>`)}</tbody>
</table></div>`
    : html`<p class="muted">${t("today.none")}</p>`;
  return {
    title: t("today.title"),
    section: "today",
    refresh: LIST_REFRESH_MS,
    body: html`<h1>${t("today.title")}</h1>
<div id="today-live" data-live aria-live="polite">
${offlineWarning(v, phones)}
<div class="cards">
  <div class="card"><span class="label">${t("today.received")}</span><span class="big" data-testid="received-count">${day.received.count}</span><span>${soles(day.received.total)}</span></div>
  <div class="card"><span class="label">${t("today.matched")}</span><span class="big" data-testid="matched-count">${day.matched}</span></div>
  <div class="card"><span class="label">${t("today.waiting")}</span><span class="big" data-testid="waiting-count">${day.waiting}</span>${day.waiting > 0 ? html`<a href="/console/pagos?estado=esperan">${t("today.waiting.link")}</a>` : ""}</div>
</div>
<h2>${t("today.by_wallet")}</h2>
${wallets}
<h2>${t("today.latest")}</h2>
${latest.length ? paymentList(v, latest) : html`<p class="muted">${t("today.none")}</p>`}
</div>`,
  };
}
