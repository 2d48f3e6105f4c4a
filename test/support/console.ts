// The console as a browser uses it, through app.handle: a session from a one-time link, pages with
// the cookie, and form posts with the cookie, the page's form token and this box's Origin.
import { createSignInLink } from "../../src/console/sessions";
import type { TestApp, TestResponse } from "./harness";

export interface Browser {
  cookie: string;
  tenantId: string;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  /** Posts a form as the page at `from` would (its _csrf), from this box's origin unless told. */
  post(path: string, fields?: Record<string, string>, opts?: { from?: string; origin?: string | null; csrf?: string }): Promise<TestResponse>;
}

/** A one-time sign-in link's token for `tenantId`, made as `cuadra console link` makes it. */
export const linkToken = (t: TestApp, tenantId: string, ttlSeconds = 900): string => createSignInLink(t.store.db, tenantId, ttlSeconds, t.clock.now()).token;

export const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

export async function signIn(t: TestApp, tenantId = t.tenant().tenant_id): Promise<Browser> {
  const res = await t.request("GET", `/console/login?token=${linkToken(t, tenantId)}`);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  const browser: Browser = {
    cookie,
    tenantId,
    get: (path, headers = {}) => t.request("GET", path, { headers: { cookie, ...headers } }),
    async post(path, fields = {}, opts = {}) {
      const csrf = opts.csrf ?? csrfOf((await browser.get(opts.from ?? "/console/")).text);
      const headers: Record<string, string> = { cookie, "content-type": "application/x-www-form-urlencoded" };
      if (opts.origin !== null) headers.origin = opts.origin ?? "http://localhost";
      return t.request("POST", path, { headers, body: new URLSearchParams({ _csrf: csrf, ...fields }).toString() });
    },
  };
  return browser;
}
