// The merchant's console (contract §18), mounted by createApp: pages rendered on the box, in
// Spanish or English, behind a session cookie. Every change is a form POST that passes the
// same-origin check (context.ts) and then calls the same services and writes as the connector and
// the CLI. Not part of the OpenAPI document: these are pages for people, not an API.
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { DomainError } from "../errors";
import type { Environment } from "../store/schema";
import { NotFoundError } from "../tenants/service";
import { ASSET_PATHS, CONSOLE_CSS, CONSOLE_JS } from "./assets";
import {
  clearedSessionCookie,
  htmlResponse,
  isHttps,
  LANG_COOKIE,
  readChange,
  redirect,
  sessionCookie,
  SIGN_IN_PATH,
  viewOf,
  visitorOf,
  type ConsoleView,
} from "./context";
import { layout, type Page } from "./layout";
import { chargeFormPage, chargePage, createCharge, safeBack, simulatePage, simulatePayment } from "./pages/charge";
import { assignPage, assignPayment, paymentsPage } from "./pages/payments";
import { ordersPage } from "./pages/orders";
import { activePhone, pairPage, phonesPage, revokeConfirmPage } from "./pages/phones";
import { addWebhookPage, createKeyPage, keyRevokePage, otherDevicePage, revokeKeyPage, settingsPage, webhookAction, webhookPage } from "./pages/settings";
import { errorPage, invalidLinkPage, notFoundPage, refusedPage, signInHelpPage } from "./pages/sign-in";
import { todayPage } from "./pages/today";

const HIDDEN = { detail: { hide: true } } as const;
const NO_BODY = { ...HIDDEN, parse: "none" } as const;

type Params = Record<string, string>;
/** A page: its data, or null for "not here" (404). */
type Render = (v: ConsoleView, request: Request, params: Params) => Page | null | Promise<Page | null>;
/** A change: the page to show, a console path to go to, an answer of its own (cookies), or null for "not here". */
type Act = (v: ConsoleView, form: URLSearchParams, params: Params, request: Request) => Promise<Page | string | Response | null>;

export const consoleRoutes = (deps: AppDeps) => {
  /** Console failures as pages; anything unexpected goes on to the app's 500 (and its log line). */
  async function answer(request: Request, work: () => Promise<Response>): Promise<Response> {
    try {
      return await work();
    } catch (e) {
      const v = visitorOf(deps, request);
      if (e instanceof NotFoundError) return htmlResponse(notFoundPage(v), 404);
      if (!(e instanceof DomainError)) throw e;
      if (e.code === "console_origin_refused") return htmlResponse(refusedPage(v, "origin"), 403);
      if (e.code === "console_session_required") return htmlResponse(refusedPage(v, "session"), 403);
      if (e.status === 404) return htmlResponse(notFoundPage(v), 404);
      return htmlResponse(errorPage(v, e.detail), e.status);
    }
  }

  const show = (render: Render) => ({ request, params }: { request: Request; params: Params }) =>
    answer(request, async () => {
      const v = viewOf(deps, request, pathOf(request));
      if (!v) return redirect(SIGN_IN_PATH);
      const page = await render(v, request, params);
      return page ? htmlResponse(layout(v, page), page.status ?? 200) : htmlResponse(notFoundPage(v), 404);
    });

  const change = (act: Act) => ({ request, params }: { request: Request; params: Params }) =>
    answer(request, async () => {
      const { view, form } = await readChange(deps, request);
      const result = await act(view, form, params, request);
      if (result === null) return htmlResponse(notFoundPage(view), 404);
      if (result instanceof Response) return result;
      return typeof result === "string" ? redirect(result) : htmlResponse(layout(view, result), result.status ?? 200);
    });

  return (
    new Elysia()
      .get("/", () => redirect("/console/"), HIDDEN)
      .get(ASSET_PATHS.css, () => asset(CONSOLE_CSS, "text/css; charset=utf-8"), HIDDEN)
      .get(ASSET_PATHS.js, () => asset(CONSOLE_JS, "text/javascript; charset=utf-8"), HIDDEN)
      .get(SIGN_IN_PATH, ({ request }) => htmlResponse(signInHelpPage(visitorOf(deps, request))), HIDDEN)
      // contract §18: the link opens a session once, then the address loses the token.
      .get(
        "/console/login",
        ({ request }) =>
          answer(request, async () => {
            const token = new URL(request.url).searchParams.get("token") ?? "";
            try {
              const session = await deps.writer.run("openConsoleSession", { token, userAgent: request.headers.get("user-agent"), now: deps.clock.now() });
              return redirect("/console/", { "set-cookie": sessionCookie(session.token, isHttps(deps, request)) });
            } catch (e) {
              if (e instanceof DomainError && e.code === "console_link_invalid") {
                return htmlResponse(invalidLinkPage(visitorOf(deps, request), /used/.test(e.detail ?? "")), 410);
              }
              throw e;
            }
          }),
        HIDDEN,
      )
      .get("/console/", show((v) => todayPage(deps, v)), HIDDEN)
      .get("/console/cobrar", show((v) => chargeFormPage(v)), HIDDEN)
      .post("/console/cobrar", change((v, form) => createCharge(deps, v, form)), NO_BODY)
      .get("/console/cobrar/:id", show((v, _r, p) => chargePage(deps, v, p.id!)), HIDDEN)
      .get("/console/simular", show((v) => simulatePage(v)), HIDDEN)
      .post("/console/simular", change((v, form) => simulatePayment(deps, v, form)), NO_BODY)
      .get("/console/pagos", show((v, request) => paymentsPage(deps, v, new URL(request.url).searchParams)), HIDDEN)
      .get("/console/pagos/:id", show((v, request, p) => assignPage(deps, v, p.id!, new URL(request.url).searchParams.get("telefono") ?? undefined)), HIDDEN)
      .post("/console/pagos/:id", change((v, form, p) => assignPayment(deps, v, p.id!, form)), NO_BODY)
      .get("/console/pedidos", show((v, request) => ordersPage(deps, v, new URL(request.url).searchParams)), HIDDEN)
      .get("/console/telefonos", show((v) => phonesPage(deps, v)), HIDDEN)
      .post("/console/telefonos/vincular", change((v) => pairPage(deps, v)), NO_BODY)
      .get("/console/telefonos/:id/revocar", show((v, _r, p) => revokeConfirmPage(deps, v, p.id!)), HIDDEN)
      .post(
        "/console/telefonos/:id/revocar",
        change(async (v, _f, p) => {
          const phone = activePhone(deps, v, p.id!);
          if (!phone) return null;
          await deps.writer.run("revokeDevice", { scope: v.scope, deviceId: phone.device_id, now: v.now });
          return phonesPage(deps, v, v.t("phones.revoked.done", { label: phone.label }));
        }),
        NO_BODY,
      )
      .get("/console/ajustes", show((v) => settingsPage(deps, v)), HIDDEN)
      .post("/console/ajustes/claves", change((v) => createKeyPage(deps, v)), NO_BODY)
      .get("/console/ajustes/claves/:id/revocar", show((v, _r, p) => keyRevokePage(deps, v, p.id!)), HIDDEN)
      .post("/console/ajustes/claves/:id/revocar", change((v, _f, p) => revokeKeyPage(deps, v, p.id!)), NO_BODY)
      .post("/console/ajustes/webhooks", change((v, form) => addWebhookOrSay(v, form)), NO_BODY)
      .get("/console/ajustes/webhooks/:id", show((v, _r, p) => webhookPage(deps, v, p.id!)), HIDDEN)
      .post("/console/ajustes/webhooks/:id/:action", change((v, _f, p) => webhookAction(deps, v, p.id!, p.action!)), NO_BODY)
      .post("/console/otro-dispositivo", change((v) => otherDevicePage(deps, v)), NO_BODY)
      .post(
        "/console/modo",
        change(async (v, form) => {
          const environment: Environment = form.get("env") === "test" ? "test" : "live";
          await deps.writer.run("setConsoleEnvironment", { sessionId: v.session.id, environment });
          return safeBack(form.get("back"));
        }),
        NO_BODY,
      )
      .post(
        "/console/idioma",
        change(async (_v, form) => {
          const lang = form.get("lang") === "en" ? "en" : "es";
          return redirect(safeBack(form.get("back")), { "set-cookie": `${LANG_COOKIE}=${lang}; Path=/; Max-Age=31536000; SameSite=Strict` });
        }),
        NO_BODY,
      )
      .post(
        "/console/salir",
        change(async (v, _f, _p, request) => {
          await deps.writer.run("revokeConsoleSession", { tenantId: v.scope.tenantId, sessionId: v.session.id, now: v.now });
          return redirect(SIGN_IN_PATH, { "set-cookie": clearedSessionCookie(isHttps(deps, request)) });
        }),
        NO_BODY,
      )
      .get("/console/*", ({ request }) => htmlResponse(notFoundPage(visitorOf(deps, request)), 404), HIDDEN)
  );

  async function addWebhookOrSay(v: ConsoleView, form: URLSearchParams): Promise<Page> {
    try {
      return await addWebhookPage(deps, v, form.get("url") ?? "");
    } catch (e) {
      if (e instanceof DomainError && (e.code === "invalid_request" || e.code === "webhook_limit_reached")) {
        return settingsPage(deps, v, { error: e.detail ?? e.message });
      }
      throw e;
    }
  }
};

function pathOf(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

function asset(text: string, type: string): Response {
  return new Response(text, { headers: { "content-type": type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" } });
}
