// The console's one stylesheet and one small script, embedded in the binary and served under
// /console/assets/ with a content hash in the URL (cached for a year, replaced on upgrade).
import { sha256Hex } from "../ids";

/**
 * Mobile first (360 px), one column; wider screens get a side menu. Contrast of text ≥ 7:1 on its
 * background except the muted grey (4.6:1), and a focus ring on every control for the keyboard.
 */
export const CONSOLE_CSS = `
:root { --ink:#111; --muted:#555; --line:#d6d6d6; --bg:#fff; --soft:#f4f5f4; --brand:#0a6b44; --brand-ink:#fff;
  --warn-bg:#fff4d6; --warn-line:#b7791f; --bad-bg:#fde8e8; --bad-line:#b42318; --ok-bg:#e3f4ea; --test-bg:#ffe9a8; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--brand); }
:focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: 8px; z-index: 9; }
.skip:focus { left: 8px; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 8px 12px; background: var(--brand); color: var(--brand-ink); }
header.top .brand { font-weight: 700; font-size: 18px; margin-right: auto; }
header.top .shop { font-weight: 400; opacity: .95; }
header.top form { margin: 0; }
header.top button { background: transparent; color: var(--brand-ink); border: 1px solid rgba(255,255,255,.7); padding: 6px 10px; border-radius: 6px; font: inherit; font-size: 14px; cursor: pointer; }
nav.sections ul { list-style: none; margin: 0; padding: 4px; display: grid; grid-template-columns: repeat(3, 1fr); gap: 4px; background: var(--soft); border-bottom: 1px solid var(--line); }
nav.sections a { display: block; text-align: center; padding: 10px 4px; text-decoration: none; color: var(--ink); border-radius: 6px; font-weight: 600; }
nav.sections a[aria-current="page"] { background: var(--brand); color: var(--brand-ink); }
main { padding: 12px; max-width: 1100px; }
h1 { font-size: 24px; margin: 8px 0 12px; }
h2 { font-size: 19px; margin: 20px 0 8px; }
.banner { padding: 10px 12px; border-left: 6px solid; margin: 0; }
.banner p { margin: 2px 0; }
.banner.test { background: var(--test-bg); border-color: #8a6d00; }
.banner.bad { background: var(--bad-bg); border-color: var(--bad-line); }
.banner.warn { background: var(--warn-bg); border-color: var(--warn-line); margin: 12px 0; }
.banner.ok { background: var(--ok-bg); border-color: var(--brand); margin: 12px 0; }
.banner form { display: inline; }
.cards { display: grid; grid-template-columns: 1fr; gap: 8px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px; background: #fff; }
.card .big { font-size: 28px; font-weight: 700; display: block; }
.card .label { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 8px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 14px; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
.list { list-style: none; margin: 0; padding: 0; }
.list > li { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin-bottom: 8px; }
.row { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.row .amount { font-weight: 700; margin-left: auto; white-space: nowrap; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 14px; border: 1px solid var(--line); background: var(--soft); }
.badge.ok { background: var(--ok-bg); border-color: var(--brand); }
.badge.bad { background: var(--bad-bg); border-color: var(--bad-line); }
.badge.warn { background: var(--warn-bg); border-color: var(--warn-line); }
form.stack { display: grid; gap: 12px; max-width: 420px; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 12px; }
label { font-weight: 600; display: block; }
.hint { font-weight: 400; color: var(--muted); font-size: 14px; display: block; }
input, select { font: inherit; padding: 10px; border: 1px solid #767676; border-radius: 6px; width: 100%; background: #fff; color: var(--ink); }
form.filters select { width: auto; min-width: 150px; }
button, .button { font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 6px; border: 1px solid var(--brand); background: var(--brand); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--brand); }
button.danger { background: var(--bad-line); border-color: var(--bad-line); }
section > form { margin-top: 12px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
.actions form { margin: 0; }
.ask { font-size: 56px; font-weight: 800; letter-spacing: -1px; margin: 4px 0; }
.paid { font-size: 44px; font-weight: 800; color: var(--brand); margin: 8px 0; }
.qr { width: 100%; max-width: 300px; height: auto; display: block; background: #fff; }
.code { font: 700 24px/1.3 ui-monospace, Menlo, Consolas, monospace; letter-spacing: 1px; overflow-wrap: anywhere; }
.secret { font: 15px/1.4 ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; background: var(--soft); padding: 8px; border-radius: 6px; user-select: all; }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 0; }
fieldset label { font-weight: 400; display: flex; gap: 10px; align-items: flex-start; padding: 8px 0; border-bottom: 1px solid var(--soft); }
fieldset input[type=radio] { width: auto; margin-top: 4px; }
dl.facts { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.scroll { overflow-x: auto; }
@media (min-width: 760px) {
  body { display: grid; grid-template-columns: 190px 1fr; grid-template-rows: auto auto 1fr; min-height: 100vh; }
  header.top, .banners { grid-column: 1 / -1; }
  nav.sections ul { grid-template-columns: 1fr; border-bottom: 0; border-right: 1px solid var(--line); height: 100%; align-content: start; padding: 8px; }
  nav.sections a { text-align: left; padding: 10px 12px; }
  main { padding: 16px 24px; }
  .cards { grid-template-columns: repeat(3, 1fr); }
}
`;

/**
 * Live lists (contract §18: at most 5 s behind, "Pagado" within 2 s): the page names an interval in
 * <body data-refresh>, and every element with data-live and an id is replaced by the same element of
 * a fresh copy of the page. Polling, not server-sent events: the box's changes come from the writer
 * thread and from other processes (the CLI), so polling one indexed query is the simpler true
 * source. A region holding the keyboard focus is left alone until the focus moves.
 */
export const CONSOLE_JS = `
(function () {
  var every = Number(document.body.getAttribute("data-refresh") || 0);
  if (!every) return;
  var busy = false;
  function tick() {
    if (busy || document.hidden) return;
    busy = true;
    fetch(location.href, { headers: { "x-cuadra-live": "1" }, credentials: "same-origin", cache: "no-store", redirect: "manual" })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (text) {
        if (!text) return;
        var fresh = new DOMParser().parseFromString(text, "text/html");
        document.querySelectorAll("[data-live]").forEach(function (el) {
          var next = fresh.getElementById(el.id);
          if (!next || next.innerHTML === el.innerHTML || el.contains(document.activeElement)) return;
          el.innerHTML = next.innerHTML;
        });
      })
      .catch(function () {})
      .then(function () { busy = false; });
  }
  setInterval(tick, every);
  document.addEventListener("visibilitychange", tick);
})();
`;

const version = (text: string) => sha256Hex(text).slice(0, 12);
export const ASSET_PATHS = {
  css: `/console/assets/console-${version(CONSOLE_CSS)}.css`,
  js: `/console/assets/console-${version(CONSOLE_JS)}.js`,
};
