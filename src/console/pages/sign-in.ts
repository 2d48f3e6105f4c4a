// Pages for someone not signed in (contract §18): how to get a sign-in link, a link that no longer
// works, a refused change, and a page that is not there.
import type { Visitor } from "../context";
import { html, type Html } from "../html";
import { bareLayout } from "../layout";

const howToSignIn = (v: Visitor): Html =>
  html`<p>${v.t("login.explain")}</p>
<p class="secret">cuadra console link --tenant ten_…</p>
<p>${v.t("login.other")}</p>`;

export const signInHelpPage = (v: Visitor): Html => bareLayout(v, v.t("login.title"), html`<h1>${v.t("login.title")}</h1>${howToSignIn(v)}`);

export const invalidLinkPage = (v: Visitor, used: boolean): Html =>
  bareLayout(
    v,
    v.t("login.invalid.title"),
    html`<h1>${v.t("login.invalid.title")}</h1><p>${v.t(used ? "login.invalid.used" : "login.invalid.expired")}</p>${howToSignIn(v)}`,
  );

export const refusedPage = (v: Visitor, reason: "origin" | "session"): Html =>
  bareLayout(
    v,
    v.t("refused.title"),
    html`<h1>${v.t("refused.title")}</h1><p>${v.t(reason === "origin" ? "refused.origin" : "refused.session")}</p>${reason === "session" ? howToSignIn(v) : html`<p><a href="/console/">${v.t("notfound.back")}</a></p>`}`,
  );

export const notFoundPage = (v: Visitor): Html =>
  bareLayout(v, v.t("notfound.title"), html`<h1>${v.t("notfound.title")}</h1><p>${v.t("notfound.explain")}</p><p><a href="/console/">${v.t("notfound.back")}</a></p>`);

export const errorPage = (v: Visitor, detail?: string): Html =>
  bareLayout(v, v.t("error.title"), html`<h1>${v.t("error.title")}</h1><p>${v.t("error.explain")}</p>${detail ? html`<p class="muted">${detail}</p>` : ""}<p><a href="/console/">${v.t("notfound.back")}</a></p>`);
