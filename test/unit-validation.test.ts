// Request validation (http/validation.ts): maxLength counts characters, as the document says, and a
// refusal names the limit that was passed (contract §2.5).
import { afterAll, describe, expect, test } from "bun:test";
import { T } from "../src/http/schemas";
import { validator } from "../src/http/validation";
import { DomainError } from "../src/errors";
import { makeTestApp } from "./support/harness";
import { bearer } from "./support/connector";

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as DomainError).extra.errors;
  }
  return null;
};

describe("maxLength in characters", () => {
  const check = validator(
    T.Object({
      code: T.Optional(T.String({ maxLength: 16 })),
      name: T.Optional(T.Union([T.String({ maxLength: 4 }), T.Null()])),
      tags: T.Optional(T.Array(T.String({ maxLength: 2 }))),
    }),
  );

  test("16 emoji (32 UTF-16 units) fit a limit of 16; 17 do not, and the refusal says 16 characters", () => {
    expect(check({ code: "😀".repeat(16) })).toEqual({ code: "😀".repeat(16) });
    expect(refusal(() => check({ code: "😀".repeat(17) }))).toEqual([{ field: "/code", message: "must be at most 16 characters" }]);
    expect(refusal(() => check({ code: "x".repeat(40) }))).toEqual([{ field: "/code", message: "must be at most 16 characters" }]);
  });

  test("inside a nullable string and an array, with the limit named, not 'Expected union value'", () => {
    expect(check({ name: "Añañ", tags: ["ñá"] })).toEqual({ name: "Añañ", tags: ["ñá"] });
    expect(refusal(() => check({ name: "Anita" }))).toEqual([{ field: "/name", message: "must be at most 4 characters" }]);
    expect(refusal(() => check({ name: "A".repeat(20) }))).toEqual([{ field: "/name", message: "must be at most 4 characters" }]);
    expect(refusal(() => check({ tags: ["ok", "too"] }))).toEqual([{ field: "/tags/1", message: "must be at most 2 characters" }]);
  });
});

const t = await makeTestApp();
afterAll(() => t.close());

describe("through the routes", () => {
  test("an order's customer_name of 129 characters is refused naming its limit; 128 emoji are accepted", async () => {
    const headers = bearer(t.tenant().keys.test);
    const long = await t.request("POST", "/connector/v1/orders", { headers, body: { orders: [{ id: "N-1", amount: 100, currency: "PEN", customer_name: "n".repeat(129) }] } });
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([{ field: "/orders/0/customer_name", message: "must be at most 128 characters" }]);
    const emoji = await t.request("POST", "/connector/v1/orders", { headers, body: { orders: [{ id: "N-2", amount: 100, currency: "PEN", customer_name: "🙂".repeat(128) }] } });
    expect(emoji.status).toBe(200);
    expect(emoji.body.orders[0].customer_name).toBe("🙂".repeat(128));
  });
});
