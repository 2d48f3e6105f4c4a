// "Cobrar" (contract §18): a till for a shop with no software of its own. It makes an order the
// way a connector would (syncOrders, unique_amount, 15 minutes), shows the exact amount to ask
// for, and "Pagado" with the payer's name once the match is made (the page polls every second).
// In test mode "Simular pago" pays it through the test-payment path of §12.
import { getOrder } from "../../connector/orders.service";
import type { OrderView } from "../../connector/views";
import type { AppDeps } from "../../deps";
import { DomainError } from "../../errors";
import { clockTime, KNOWN_WALLETS, parseSoles, soles, solesValue, walletName } from "../../i18n/format";
import { newId, randomBase62 } from "../../ids";
import { ingestPayment } from "../../payments/ingest";
import { parsePaymentEvent } from "../../payments/model";
import type { ConsoleView } from "../context";
import { html, type Html } from "../html";
import { csrfField, type Page } from "../layout";

export const CHARGE_TTL_MS = 15 * 60 * 1000;
/** "Pagado" within 2 s of the match (contract §18): the charge's status is read every second. */
export const CHARGE_REFRESH_MS = 1000;
const NAME_MAX = 128;

export interface ChargeForm {
  amount?: string;
  customer?: string;
  error?: string;
}

export function chargeFormPage(v: ConsoleView, form: ChargeForm = {}): Page {
  const { t } = v;
  return {
    title: t("charge.title"),
    section: "charge",
    status: form.error ? 400 : 200,
    body: html`<h1>${t("charge.title")}</h1>
${form.error ? html`<div class="banner bad" role="alert"><p>${form.error}</p></div>` : ""}
<form class="stack" method="post" action="/console/cobrar">${csrfField(v)}
  <div><label for="amount">${t("charge.amount")} <span class="hint" id="amount-hint">${t("charge.amount.hint")}</span></label>
  <input id="amount" name="amount" inputmode="decimal" autocomplete="off" required aria-describedby="amount-hint" value="${form.amount ?? ""}"${form.error ? html` aria-invalid="true"` : ""} autofocus></div>
  <div><label for="customer">${t("charge.customer")} <span class="hint" id="customer-hint">${t("charge.customer.hint")}</span></label>
  <input id="customer" name="customer" autocomplete="off" maxlength="${NAME_MAX}" aria-describedby="customer-hint" value="${form.customer ?? ""}"></div>
  <div><button>${t("charge.submit")}</button></div>
</form>`,
  };
}

/** GET /console/simular: "Simular pago" with an amount to type (test mode only). */
export function simulatePage(v: ConsoleView): Page {
  if (v.scope.environment !== "test") throw new DomainError("test_mode_only", "Simulated payments exist only in test mode");
  return { title: v.t("simulate.title"), section: "payments", body: simulateForm(v, undefined, "/console/pagos") };
}

/** POST /console/cobrar: the order, or the form again with what to correct. */
export async function createCharge(deps: AppDeps, v: ConsoleView, form: URLSearchParams): Promise<Page | string> {
  const { t } = v;
  const typed = { amount: form.get("amount") ?? "", customer: (form.get("customer") ?? "").trim() };
  const amount = parseSoles(typed.amount);
  if (amount === null) return chargeFormPage(v, { ...typed, error: t("charge.error.amount") });
  if (typed.customer.length > NAME_MAX) return chargeFormPage(v, { ...typed, error: t("charge.error.name") });
  const id = `cobro-${randomBase62(10)}`;
  try {
    await deps.writer.run("syncOrders", {
      scope: v.scope,
      orders: [
        {
          id,
          amount,
          currency: "PEN",
          unique_amount: true,
          created_at: v.now,
          expires_at: v.now + CHARGE_TTL_MS,
          ...(typed.customer ? { customer_name: typed.customer } : {}),
        },
      ],
      now: v.now,
    });
  } catch (e) {
    if (e instanceof DomainError && e.code === "unique_amount_unavailable") {
      return chargeFormPage(v, { ...typed, error: t("charge.error.unique", { amount: solesValue(amount) }) });
    }
    throw e;
  }
  return `/console/cobrar/${encodeURIComponent(id)}`;
}

export function chargePage(deps: AppDeps, v: ConsoleView, orderId: string): Page {
  const { t } = v;
  const order = getOrder(deps.store, v.scope, orderId, v.now);
  return {
    title: t("charge.title"),
    section: "charge",
    refresh: order.status === "pending" ? CHARGE_REFRESH_MS : undefined,
    body: html`<h1>${t("charge.title")}</h1>
<p class="muted">${t("charge.order", { id: order.id })}${order.customer_name ? html` · ${order.customer_name}` : ""}</p>
<div id="charge-live" data-live aria-live="assertive">${chargeState(v, order)}</div>
<div class="actions"><a class="button secondary" href="/console/cobrar">${t("charge.new")}</a></div>
${v.scope.environment === "test" && order.status === "pending" ? simulateForm(v, order.expected_amount, `/console/cobrar/${encodeURIComponent(order.id)}`) : ""}`,
  };
}

function chargeState(v: ConsoleView, order: OrderView): Html {
  const { t } = v;
  if (order.status === "matched" && order.match) {
    const m = order.match;
    const values = { name: m.payer_name ?? "", wallet: walletName(m.source), time: clockTime(m.matched_at, v.lang) };
    return html`<p class="paid" data-testid="charge-status">${t("charge.paid")}</p>
<p class="ask">${soles(m.amount)}</p>
<p>${m.payer_name ? t("charge.paid.by", values) : t("charge.paid.anonymous", values)}</p>`;
  }
  if (order.status === "expired") return html`<p class="paid" data-testid="charge-status">${t("charge.expired")}</p><p>${t("charge.expired.explain")}</p>`;
  if (order.status === "cancelled") return html`<p class="paid" data-testid="charge-status">${t("charge.cancelled")}</p>`;
  return html`<p>${t("charge.ask")}</p>
<p class="ask" data-testid="charge-amount">${soles(order.expected_amount)}</p>
${order.expected_amount !== order.amount ? html`<p class="muted">${t("charge.ask.why")}</p>` : ""}
<p data-testid="charge-status">${t("charge.waiting")} ${t("charge.expires", { time: clockTime(order.expires_at, v.lang) })}</p>`;
}

/** "Simular pago" (test mode only): a payment of `amount` (or one typed) as a phone would send it. */
export function simulateForm(v: ConsoleView, amount: number | undefined, back: string): Html {
  const { t } = v;
  return html`<section id="simular" aria-labelledby="simular-title">
<h2 id="simular-title">${t("simulate.title")}</h2>
<p class="muted">${t("simulate.explain")}</p>
<form class="stack" method="post" action="/console/simular">${csrfField(v)}
  <input type="hidden" name="back" value="${back}">
  ${amount !== undefined
    ? html`<input type="hidden" name="amount" value="${solesValue(amount)}">`
    : html`<div><label for="sim-amount">${t("charge.amount")}</label><input id="sim-amount" name="amount" inputmode="decimal" required></div>`}
  <div><label for="sim-payer">${t("simulate.payer")}</label><input id="sim-payer" name="payer" value="Yanina Man*" maxlength="128"></div>
  <div><label for="sim-wallet">${t("simulate.wallet")}</label><select id="sim-wallet" name="wallet">${KNOWN_WALLETS.map((w) => html`<option value="${w}">${walletName(w)}</option>`)}</select></div>
  <div><button>${t("simulate.submit")}</button></div>
</form></section>`;
}

/** POST /console/simular: contract §12's test payment, from the console's test mode. */
export async function simulatePayment(deps: AppDeps, v: ConsoleView, form: URLSearchParams): Promise<string> {
  if (v.scope.environment !== "test") throw new DomainError("test_mode_only", "Simulated payments exist only in test mode");
  const amount = parseSoles(form.get("amount") ?? "");
  const back = safeBack(form.get("back"));
  if (amount === null) return back;
  const wallet = form.get("wallet") ?? "yape";
  const payer = (form.get("payer") ?? "").trim().slice(0, NAME_MAX);
  const event = parsePaymentEvent({
    event_id: newId("evt"),
    kind: "payment.received",
    source: KNOWN_WALLETS.includes(wallet) ? wallet : "yape",
    amount,
    currency: "PEN",
    occurred_at: v.now,
    ...(payer ? { payer_name: payer } : {}),
  });
  await ingestPayment(deps, { tenantId: v.scope.tenantId, environment: "test", deviceId: null }, event);
  return back;
}

/** Where a form may send the browser back to: a console page, never another host. */
export function safeBack(back: string | null): string {
  return back && /^\/console\/[A-Za-z0-9._~%/#?=&-]*$/.test(back) && !back.startsWith("//") ? back : "/console/";
}
