// "Ajustes" (contract §18): the license, the shop software's keys (created, shown once, revoked),
// webhooks (added, listed with their messages, rotated, tested, deleted) and "Otro dispositivo".
// Each change is the write the connector or the CLI makes, confined to the console's shop.
import { listKeys } from "../../tenants/service";
import type { AppDeps } from "../../deps";
import { calendarDate, clockTime } from "../../i18n/format";
import type { MessageKey } from "../../i18n";
import { LINK_TTL_DEFAULT_S, signInUrl } from "../sessions";
import { getEndpoint, listEndpoints, listMessages, type EndpointView } from "../../webhooks/endpoints.service";
import { newWebhookSecret } from "../../webhooks/signature";
import type { ConsoleView } from "../context";
import { html, type Html } from "../html";
import { csrfField, type Page } from "../layout";
import { qrSvg, when } from "./parts";

export interface SettingsNotice {
  done?: string;
  error?: string;
  /** A secret shown this once: a new key or a webhook's signing secret. */
  secret?: { intro: string; value: string };
}

function notice(n: SettingsNotice): Html {
  return html`${n.done ? html`<div class="banner ok" role="status"><p>${n.done}</p></div>` : ""}
${n.error ? html`<div class="banner bad" role="alert"><p>${n.error}</p></div>` : ""}
${n.secret ? html`<div class="banner ok" role="status"><p>${n.secret.intro}</p><p class="secret" data-testid="secret">${n.secret.value}</p></div>` : ""}`;
}

const keysOf = (deps: AppDeps, v: ConsoleView) => listKeys(deps.store.db, v.scope.tenantId).filter((k) => k.environment === v.scope.environment);
const keyLabel = (k: { prefix: string; last4: string }) => `${k.prefix}…${k.last4}`;

export function settingsPage(deps: AppDeps, v: ConsoleView, n: SettingsNotice = {}): Page {
  const { t } = v;
  const lic = v.license;
  const licState: MessageKey = lic.status === "active" ? "settings.license.active" : lic.reason === "expired" ? "settings.license.expired" : "settings.license.suspended";
  const keys = keysOf(deps, v);
  const hooks = listEndpoints(deps.store, v.scope).data;
  return {
    title: t("settings.title"),
    section: "settings",
    status: n.error ? 400 : 200,
    body: html`<h1>${t("settings.title")}</h1>
${notice(n)}
<section aria-labelledby="lic"><h2 id="lic">${t("settings.license")}</h2>
<dl class="facts">
  <dt>${t("settings.keys.state")}</dt><dd><span class="badge ${lic.status === "active" ? "ok" : "bad"}">${t(licState)}</span></dd>
  <dt>${t("settings.license.plan")}</dt><dd>${lic.plan}</dd>
  <dt>${t("settings.license.devices")}</dt><dd>${t("settings.license.devices.value", { used: lic.devices_in_use, max: lic.max_devices })}</dd>
  <dt>${t("settings.license.expires")}</dt><dd>${lic.expires_at === null ? t("settings.license.never") : calendarDate(lic.expires_at, v.lang)}</dd>
</dl></section>

<section aria-labelledby="keys"><h2 id="keys">${t("settings.keys")}</h2>
<p class="muted">${t("settings.keys.explain", { env: t(v.scope.environment === "live" ? "settings.keys.env.live" : "settings.keys.env.test") })}</p>
${keys.length
  ? html`<div class="scroll"><table><thead><tr><th scope="col">${t("settings.keys.key")}</th><th scope="col">${t("settings.keys.created_at")}</th><th scope="col">${t("settings.keys.state")}</th><th scope="col"></th></tr></thead>
<tbody>${keys.map(
      (k) => html`<tr><td><code>${keyLabel(k)}</code></td><td>${calendarDate(k.created_at, v.lang)}</td><td>${
        k.revoked_at === null ? t("settings.keys.active") : t("settings.keys.revoked", { date: calendarDate(k.revoked_at, v.lang) })
      }</td><td>${k.revoked_at === null ? html`<a href="/console/ajustes/claves/${encodeURIComponent(k.key_id)}/revocar">${t("settings.keys.revoke")}</a>` : ""}</td></tr>`,
    )}</tbody></table></div>`
  : html`<p class="muted">${t("settings.keys.none")}</p>`}
<form method="post" action="/console/ajustes/claves">${csrfField(v)}<button>${t("settings.keys.create")}</button></form>
</section>

<section aria-labelledby="hooks"><h2 id="hooks">${t("settings.webhooks")}</h2>
<p class="muted">${t("settings.webhooks.explain")}</p>
${hooks.length ? html`<ul class="list">${hooks.map((e) => endpointItem(v, e))}</ul>` : html`<p class="muted">${t("settings.webhooks.none")}</p>`}
<form class="stack" method="post" action="/console/ajustes/webhooks">${csrfField(v)}
  <div><label for="hook-url">${t("settings.webhooks.url")}</label><input id="hook-url" name="url" type="url" required placeholder="https://mi-tienda.pe/cuadra/webhook" maxlength="2048"></div>
  <div><button>${t("settings.webhooks.add")}</button></div>
</form></section>

<section aria-labelledby="other"><h2 id="other">${t("settings.devices")}</h2>
<p class="muted">${t("settings.devices.explain")}</p>
<form method="post" action="/console/otro-dispositivo">${csrfField(v)}<button>${t("settings.devices.make")}</button></form>
</section>`,
  };
}

function endpointItem(v: ConsoleView, e: EndpointView): Html {
  const { t } = v;
  return html`<li><div class="row"><code>${e.url}</code><span class="badge ${e.status === "enabled" ? "ok" : "bad"}">${t(e.status === "enabled" ? "settings.webhooks.enabled" : "settings.webhooks.disabled")}</span></div>
<p class="muted">${t("settings.webhooks.events")}: ${e.events.join(", ")}</p>
<a href="/console/ajustes/webhooks/${encodeURIComponent(e.id)}">${t("settings.webhooks.messages")}</a></li>`;
}

export function keyRevokePage(deps: AppDeps, v: ConsoleView, keyId: string): Page | null {
  const { t } = v;
  const key = keysOf(deps, v).find((k) => k.key_id === keyId && k.revoked_at === null);
  if (!key) return null;
  return {
    title: t("settings.keys.revoke"),
    section: "settings",
    body: html`<h1>${t("settings.keys.revoke.title", { key: keyLabel(key) })}</h1>
<p>${t("settings.keys.revoke.explain")}</p>
<div class="actions">
  <form method="post" action="/console/ajustes/claves/${encodeURIComponent(keyId)}/revocar">${csrfField(v)}<button class="danger">${t("phones.revoke.confirm")}</button></form>
  <a class="button secondary" href="/console/ajustes">${t("phones.revoke.cancel")}</a>
</div>`,
  };
}

export async function createKeyPage(deps: AppDeps, v: ConsoleView): Promise<Page> {
  const created = await deps.writer.run("createKey", { tenantId: v.scope.tenantId, environment: v.scope.environment, now: v.now });
  return settingsPage(deps, v, { secret: { intro: v.t("settings.keys.created"), value: created.key } });
}

export async function revokeKeyPage(deps: AppDeps, v: ConsoleView, keyId: string): Promise<Page | null> {
  const key = keysOf(deps, v).find((k) => k.key_id === keyId);
  if (!key) return null;
  await deps.writer.run("revokeKey", { tenantId: v.scope.tenantId, keyId, now: v.now });
  return settingsPage(deps, v, { done: v.t("settings.keys.revoked.done", { key: keyLabel(key) }) });
}

export async function addWebhookPage(deps: AppDeps, v: ConsoleView, url: string): Promise<Page> {
  const secret = newWebhookSecret();
  const sealedSecret = await deps.secretBox.seal(secret);
  await deps.writer.run("createWebhookEndpoint", { scope: v.scope, input: { url: url.trim() }, sealedSecret, now: v.now });
  return settingsPage(deps, v, { secret: { intro: v.t("settings.webhooks.added"), value: secret } });
}

export function webhookPage(deps: AppDeps, v: ConsoleView, id: string, n: SettingsNotice = {}): Page {
  const { t } = v;
  const e = getEndpoint(deps.store, v.scope, id);
  const messages = listMessages(deps.store, v.scope, id, { limit: 50 }).data;
  const statusKey = (s: string): MessageKey => (s === "succeeded" ? "settings.webhooks.msg.succeeded" : s === "failed" ? "settings.webhooks.msg.failed" : "settings.webhooks.msg.pending");
  const action = (path: string, label: string, danger = false) =>
    html`<form method="post" action="/console/ajustes/webhooks/${encodeURIComponent(id)}/${path}">${csrfField(v)}<button class="${danger ? "danger" : "secondary"}">${label}</button></form>`;
  return {
    title: t("settings.webhooks"),
    section: "settings",
    refresh: 3000,
    body: html`<h1>${t("settings.webhooks")}</h1>
${notice(n)}
<p><code>${e.url}</code> <span class="badge ${e.status === "enabled" ? "ok" : "bad"}">${t(e.status === "enabled" ? "settings.webhooks.enabled" : "settings.webhooks.disabled")}</span></p>
<div class="actions">${action("probar", t("settings.webhooks.test"))}${action("rotar", t("settings.webhooks.rotate"))}${action("eliminar", t("settings.webhooks.delete"), true)}</div>
<h2>${t("settings.webhooks.messages")}</h2>
<div id="messages-live" data-live>${
      messages.length
        ? html`<div class="scroll"><table><thead><tr><th scope="col">${t("payments.when")}</th><th scope="col">${t("settings.webhooks.type")}</th><th scope="col">${t("payments.status")}</th><th scope="col" class="num">${t("settings.webhooks.attempts")}</th><th scope="col">${t("settings.webhooks.response")}</th></tr></thead>
<tbody>${messages.map((m) => html`<tr><td>${when(v, m.created_at)}</td><td>${m.type}</td><td>${t(statusKey(m.status))}</td><td class="num">${m.attempts}</td><td>${m.last_response_status ?? m.last_error ?? "—"}</td></tr>`)}</tbody></table></div>`
        : html`<p class="muted">${t("settings.webhooks.no_messages")}</p>`
    }</div>
<p><a href="/console/ajustes">${t("settings.webhooks.back")}</a></p>`,
  };
}

export async function webhookAction(deps: AppDeps, v: ConsoleView, id: string, action: string): Promise<Page | null> {
  const scope = v.scope;
  if (action === "probar") {
    await deps.writer.run("queueWebhookTest", { scope, id, now: v.now });
    return webhookPage(deps, v, id, { done: v.t("settings.webhooks.tested") });
  }
  if (action === "rotar") {
    const secret = newWebhookSecret();
    await deps.writer.run("rotateWebhookSecret", { scope, id, sealedSecret: await deps.secretBox.seal(secret), now: v.now });
    return webhookPage(deps, v, id, { secret: { intro: v.t("settings.webhooks.rotated"), value: secret } });
  }
  if (action === "eliminar") {
    await deps.writer.run("deleteWebhookEndpoint", { scope, id, now: v.now });
    return settingsPage(deps, v, { done: v.t("settings.webhooks.deleted") });
  }
  return null;
}

/** "Otro dispositivo": a new one-time link for this shop, as a QR code to scan with a tablet. */
export async function otherDevicePage(deps: AppDeps, v: ConsoleView): Promise<Page> {
  const { t } = v;
  const link = await deps.writer.run("createConsoleLink", { tenantId: v.scope.tenantId, ttlSeconds: LINK_TTL_DEFAULT_S, now: v.now });
  const url = signInUrl(v.boxUrl, link.token);
  return {
    title: t("settings.devices"),
    section: "settings",
    body: html`<h1>${t("settings.devices")}</h1>
<p>${t("settings.devices.explain")}</p>
${await qrSvg(url, t("settings.devices.qr"))}
<p class="secret">${url}</p>
<p>${t("settings.devices.expires", { time: clockTime(link.expires_at, v.lang) })}</p>
<p><a href="/console/ajustes">${t("settings.webhooks.back")}</a></p>`,
  };
}
