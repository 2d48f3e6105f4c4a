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

test("a short Host header still routes (Elysia locates the path by position)", async () => {
  for (const host of ["x", "box", "ab:1"]) {
    const res = await t.send(new Request(`http://${host}/healthz`, { headers: { host } }));
    expect(res.status).toBe(200);
  }
  const res = await t.send(new Request("https://x/nope"));
  expect(res.status).toBe(404);
  expect(res.body.code).toBe("not_found");
});
