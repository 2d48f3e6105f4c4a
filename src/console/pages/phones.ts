// "Teléfonos" (contract §18): each phone's state from its heartbeats, "Vincular teléfono" with the
// pairing QR code of §17, and "Revocar" after a confirmation.
import { listDevices } from "../../connector/views.service";
import type { DeviceView } from "../../connector/views";
import type { AppDeps } from "../../deps";
import { CODE_TTL_DEFAULT_S } from "../../device/codes";
import { ago } from "../../i18n/format";
import { pairingUri } from "../../pairing/uri";
import type { ConsoleView } from "../context";
import { html, type Html } from "../html";
import { csrfField, type Page } from "../layout";
import { expiryText, offlineWarning, qrSvg } from "./parts";
import { LIST_REFRESH_MS } from "./today";

export function phonesPage(deps: AppDeps, v: ConsoleView, done?: string): Page {
  const { t } = v;
  const phones = listDevices(deps.store, v.scope, v.now).data;
  return {
    title: t("phones.title"),
    section: "phones",
    refresh: LIST_REFRESH_MS,
    body: html`<h1>${t("phones.title")}</h1>
${done ? html`<div class="banner ok" role="status"><p>${done}</p></div>` : ""}
<form method="post" action="/console/telefonos/vincular">${csrfField(v)}<button>${t("phones.pair")}</button></form>
<div id="phones-live" data-live>
${offlineWarning(v, phones)}
${phones.length ? html`<ul class="list">${phones.map((p) => phoneItem(v, p))}</ul>` : html`<p class="muted">${t("phones.none")}</p>`}
</div>`,
  };
}

function phoneItem(v: ConsoleView, p: DeviceView): Html {
  const { t } = v;
  const h = p.health as Record<string, unknown>;
  const yesNo = (x: unknown, yes = t("phones.yes"), no = t("phones.no")) => (x === true ? yes : x === false ? no : t("phones.unknown"));
  const battery = typeof h.battery_level === "number" ? `${Math.round(h.battery_level)} %${h.charging === true ? ` (${t("phones.charging")})` : ""}` : t("phones.unknown");
  const state =
    p.status === "revoked"
      ? html`<span class="badge">${t("phones.revoked")}</span>`
      : p.online
        ? html`<span class="badge ok">${t("phones.online")}</span>`
        : html`<span class="badge bad">${t("phones.offline")}</span>`;
  return html`<li data-device="${p.device_id}">
<div class="row"><strong>${p.label}</strong>${state}<span class="muted">${p.platform}</span></div>
<dl class="facts">
  <dt>${t("phones.battery")}</dt><dd>${battery}</dd>
  <dt>${t("phones.access")}</dt><dd>${yesNo(h.notification_access)}</dd>
  <dt>${t("phones.listener")}</dt><dd>${yesNo(h.listener_connected, t("phones.connected"), t("phones.disconnected"))}</dd>
  <dt>${t("phones.queue")}</dt><dd>${typeof h.queue_depth === "number" ? h.queue_depth : t("phones.unknown")}</dd>
  <dt>${t("phones.last_seen")}</dt><dd>${ago(p.last_seen_at, v.now, t)}</dd>
  <dt>${t("phones.app")}</dt><dd>${p.app_version}</dd>
</dl>
${p.status === "active" ? html`<a class="button secondary" href="/console/telefonos/${encodeURIComponent(p.device_id)}/revocar">${t("phones.revoke")}</a>` : ""}
</li>`;
}

/** POST /console/telefonos/vincular: a new activation code and its pairing QR code (contract §17). */
export async function pairPage(deps: AppDeps, v: ConsoleView): Promise<Page> {
  const { t } = v;
  const code = await deps.writer.run("createActivationCode", { scope: v.scope, ttlSeconds: CODE_TTL_DEFAULT_S, now: v.now });
  const uri = pairingUri({ url: v.boxUrl, code: code.code, fp: deps.config.tlsFingerprint ?? null });
  const expiry = expiryText(v, code.expires_at);
  return {
    title: t("pair.title"),
    section: "phones",
    body: html`<h1>${t("pair.title")}</h1>
<p>${t("pair.steps")}</p>
${v.scope.environment === "test" ? html`<p class="banner test">${t("pair.test")}</p>` : ""}
${await qrSvg(uri, t("pair.qr"))}
<dl class="facts">
  <dt>${t("pair.code")}</dt><dd class="code" data-testid="pairing-code">${code.code}</dd>
  <dt>${t("pair.address")}</dt><dd>${new URL(v.boxUrl).host}</dd>
</dl>
<p>${t("pair.expires", expiry)}</p>
<div class="actions">
  <form method="post" action="/console/telefonos/vincular">${csrfField(v)}<button class="secondary">${t("pair.again")}</button></form>
  <a class="button secondary" href="/console/telefonos">${t("phones.title")}</a>
</div>`,
  };
}

/** A phone of the console's shop and environment that is not revoked. */
export const activePhone = (deps: AppDeps, v: ConsoleView, deviceId: string): DeviceView | undefined =>
  listDevices(deps.store, v.scope, v.now).data.find((p) => p.device_id === deviceId && p.status === "active");

export function revokeConfirmPage(deps: AppDeps, v: ConsoleView, deviceId: string): Page | null {
  const { t } = v;
  const phone = activePhone(deps, v, deviceId);
  if (!phone) return null;
  return {
    title: t("phones.revoke"),
    section: "phones",
    body: html`<h1>${t("phones.revoke.title", { label: phone.label })}</h1>
<p>${t("phones.revoke.explain")}</p>
<div class="actions">
  <form method="post" action="/console/telefonos/${encodeURIComponent(deviceId)}/revocar">${csrfField(v)}<button class="danger">${t("phones.revoke.confirm")}</button></form>
  <a class="button secondary" href="/console/telefonos">${t("phones.revoke.cancel")}</a>
</div>`,
  };
}
