// Pieces several console pages share: a payment list, status badges, the offline-phones warning and
// a QR code drawn as inline SVG on the box (no image request, nothing from another host).
import QRCode from "qrcode";
import type { DeviceView } from "../../connector/views";
import type { MessageKey } from "../../i18n";
import { ago, calendarDate, clockTime, dateAndTime, soles, startOfLocalDay, walletName } from "../../i18n/format";
import type { EventRow } from "../../matching/store";
import { QUIET_ZONE } from "../../pairing/qr";
import type { ConsoleView, Visitor } from "../context";
import { html, trusted, type Html } from "../html";

const EVENT_STATUS: Record<EventRow["matchStatus"], [MessageKey, string]> = {
  matched: ["status.matched", "ok"],
  unmatched: ["status.unmatched", "warn"],
  ambiguous: ["status.ambiguous", "warn"],
  duplicate: ["status.duplicate", ""],
};

export const eventBadge = (v: Visitor, status: EventRow["matchStatus"]): Html => {
  const [key, tone] = EVENT_STATUS[status];
  return html`<span class="badge ${tone}">${v.t(key)}</span>`;
};

const ORDER_STATUS: Record<string, [MessageKey, string]> = {
  pending: ["order.pending", "warn"],
  matched: ["order.matched", "ok"],
  cancelled: ["order.cancelled", ""],
  expired: ["order.expired", "bad"],
};

export const orderBadge = (v: Visitor, status: string): Html => {
  const [key, tone] = ORDER_STATUS[status] ?? ["order.pending", ""];
  return html`<span class="badge ${tone}">${v.t(key)}</span>`;
};

/** A time as people say it: the hour today, the day and hour before. */
export const when = (v: Visitor, ms: number): string => (ms >= startOfLocalDay(v.now) ? clockTime(ms, v.lang) : dateAndTime(ms, v.lang));

export function paymentList(v: ConsoleView, rows: readonly EventRow[]): Html {
  const { t } = v;
  return html`<ul class="list">${rows.map(
    (e) => html`<li>
  <div class="row"><span>${when(v, e.occurredAt)}</span><span>${walletName(e.source)}</span><span>${e.payerName ?? "—"}</span><span class="amount">${soles(e.amount)}</span></div>
  <div class="row">${eventBadge(v, e.matchStatus)}${
    e.matchStatus === "matched" && e.orderId
      ? html`<span>${t("payments.order")} ${e.orderId}</span>`
      : e.matchStatus === "unmatched" || e.matchStatus === "ambiguous"
        ? html`<a class="button secondary" href="/console/pagos/${encodeURIComponent(e.eventId)}${e.deviceId ? `?telefono=${encodeURIComponent(e.deviceId)}` : ""}">${t("payments.assign")}</a>`
        : ""
  }</div>
</li>`,
  )}</ul>`;
}

export function offlineWarning(v: ConsoleView, phones: readonly DeviceView[]): Html | null {
  const quiet = phones.filter((p) => p.status === "active" && !p.online);
  if (quiet.length === 0) return null;
  const { t } = v;
  return html`<div class="banner warn" role="alert" data-testid="offline-warning"><p><strong>${t("offline.title")}</strong></p>
<ul>${quiet.map((p) => html`<li>${p.label} · ${p.last_heartbeat_at === null ? t("offline.never") : t("offline.since", { when: ago(p.last_heartbeat_at, v.now, t) })}</li>`)}</ul>
<p>${t("offline.explain")}</p></div>`;
}

/** The QR code of `text` as inline SVG, black on white with the 4-module quiet zone scanners need. */
export async function qrSvg(text: string, label: string): Promise<Html> {
  const svg = await QRCode.toString(text, { type: "svg", margin: QUIET_ZONE, errorCorrectionLevel: "M", color: { dark: "#000000", light: "#ffffff" } });
  // The library's markup, given a role and a name for screen readers and tests.
  return trusted(svg.replace("<svg ", `<svg class="qr" role="img" aria-label="${label.replace(/"/g, "&quot;")}" `));
}

export const expiryText = (v: Visitor, ms: number): { time: string; date: string } => ({ time: clockTime(ms, v.lang), date: calendarDate(ms, v.lang) });
