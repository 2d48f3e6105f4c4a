import { afterAll, expect, test } from "bun:test";
import { makeTestApp } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

test("healthz answers ok with the version", async () => {
  const res = await t.request("GET", "/healthz");
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: "ok", version: expect.any(String) });
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
});
