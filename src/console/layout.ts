// The frame of every console page: the menu, the live/test switch, the language, and the banners
// that must show everywhere (test mode; a suspended or expired license, contract §18).
import type { MessageKey } from "../i18n";
import { calendarDate } from "../i18n/format";
import { ASSET_PATHS } from "./assets";
import type { ConsoleView, Visitor } from "./context";
import { html, type Child, type Html } from "./html";

export type Section = "today" | "charge" | "payments" | "orders" | "phones" | "settings";

const SECTIONS: [Section, string, MessageKey][] = [
  ["today", "/console/", "nav.today"],
  ["charge", "/console/cobrar", "nav.charge"],
  ["payments", "/console/pagos", "nav.payments"],
  ["orders", "/console/pedidos", "nav.orders"],
  ["phones", "/console/telefonos", "nav.phones"],
  ["settings", "/console/ajustes", "nav.settings"],
];

export interface Page {
  title: string;
  section?: Section;
  body: Child;
  /** Milliseconds between refreshes of the page's data-live regions; none when absent. */
  refresh?: number;
  status?: number;
}

/** A hidden field with the session's form token: every form that changes something carries it. */
export const csrfField = (v: ConsoleView): Html => html`<input type="hidden" name="_csrf" value="${v.csrf}">`;

const back = (v: ConsoleView): Html => html`<input type="hidden" name="back" value="${v.path}">`;

function head(v: Visitor, title: string): Html {
  return html`<!doctype html>
<html lang="${v.t("lang.tag")}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Cuadra</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<script src="${ASSET_PATHS.js}" defer></script>
</head>`;
}

function banners(v: ConsoleView): Html {
  const { t } = v;
  const test =
    v.scope.environment === "test"
      ? html`<div class="banner test" role="note" aria-label="${t("mode.test.banner")}"><p><strong>${t("mode.test.banner")}</strong> · ${t("mode.test.explain")}
  <a href="/console/simular">${t("mode.simulate")}</a></p></div>`
      : null;
  const lic = v.license;
  const license =
    lic.status === "suspended"
      ? html`<div class="banner bad" role="alert"><p><strong>${lic.reason === "expired" && lic.expires_at !== null ? t("license.expired", { date: calendarDate(lic.expires_at, v.lang) }) : t("license.suspended")}</strong>
  ${t("license.effect")}</p><p>${t("license.todo")}</p></div>`
      : null;
  return html`<div class="banners">${test}${license}</div>`;
}

export function layout(v: ConsoleView, page: Page): Html {
  const { t } = v;
  const nav = SECTIONS.map(
    ([id, href, key]) => html`<li><a href="${href}"${page.section === id ? html` aria-current="page"` : ""}>${t(key)}</a></li>`,
  );
  const toTest = v.scope.environment === "live";
  return html`${head(v, page.title)}
<body${page.refresh ? html` data-refresh="${page.refresh}"` : ""}>
<a class="skip" href="#main">${t("skip")}</a>
<header class="top">
  <span class="brand">Cuadra <span class="shop">· ${v.shopName}</span></span>
  <form method="post" action="/console/modo">${csrfField(v)}${back(v)}<input type="hidden" name="env" value="${toTest ? "test" : "live"}"><button>${t(toTest ? "mode.to_test" : "mode.to_live")}</button></form>
  <form method="post" action="/console/idioma">${csrfField(v)}${back(v)}<input type="hidden" name="lang" value="${v.lang === "es" ? "en" : "es"}"><button lang="${v.lang === "es" ? "en" : "es"}" aria-label="${t("lang.switch")}">${t("lang.other")}</button></form>
  <form method="post" action="/console/salir">${csrfField(v)}<button>${t("signout")}</button></form>
</header>
${banners(v)}
<nav class="sections" aria-label="${t("nav.label")}"><ul>${nav}</ul></nav>
<main id="main">
${page.body}
</main>
</body>
</html>`;
}

/** A page for someone not signed in (the sign-in help, a used link, a refusal). */
export function bareLayout(v: Visitor, title: string, body: Child): Html {
  return html`${head(v, title)}
<body>
<header class="top"><span class="brand">Cuadra</span></header>
<main id="main">
${body}
</main>
</body>
</html>`;
}
