// The one error renderer: RFC 9457 problem details with machine codes (contract §2.5).
import { describe, expect, test } from "bun:test";
import { ApiError, ERROR_CODES, problemBody, problemResponse, statusOf, type ErrorCode } from "../src/http/errors";
import { checkCurrency, invalid, validator } from "../src/http/validation";
import { T } from "../src/http/schemas";

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

describe("problem details", () => {
  test("every 4xx code renders type, title, status, detail, code, request_id and its extra members", () => {
    for (const code of codes.filter((c) => statusOf(c) < 500)) {
      const body = problemBody(new ApiError(code, "what went wrong", { extra_member: 7 }), "req_abc");
      expect(body).toEqual({
        type: `urn:cuadra:error:${code}`,
        title: ERROR_CODES[code][1],
        status: ERROR_CODES[code][0],
        detail: "what went wrong",
        code,
        request_id: "req_abc",
        extra_member: 7,
      });
    }
  });

  test("a 5xx body carries only code, title, status and request_id: no detail, no extras, no stack", () => {
    const fives = codes.filter((c) => statusOf(c) >= 500);
    expect(fives).toEqual(["internal_error", "service_unavailable"]);
    for (const code of fives) {
      const err = new ApiError(code, "SQLITE_CORRUPT at /var/lib/cuadra/cuadra.db", { sql: "SELECT secret FROM devices" });
      const body = problemBody(err, "req_5xx");
      expect(Object.keys(body).sort()).toEqual(["code", "request_id", "status", "title"]);
      expect(JSON.stringify(body)).not.toContain("SQLITE");
      expect(JSON.stringify(body)).not.toContain("SELECT");
    }
  });

  test("without a detail the title stands in", () => {
    expect(problemBody(new ApiError("not_found"), "req_1").detail).toBe("Not found");
  });

  test("statuses follow the contract's codes", () => {
    const expected: Partial<Record<ErrorCode, number>> = {
      invalid_request: 400,
      malformed_json: 400,
      unsupported_currency: 400,
      api_key_missing: 401,
      api_key_invalid: 401,
      invalid_signature: 401,
      device_revoked: 403,
      license_suspended: 403,
      not_found: 404,
      method_not_allowed: 405,
      idempotency_key_in_use: 409,
      activation_code_used: 410,
      payload_too_large: 413,
      unsupported_media_type: 415,
      idempotency_key_reused: 422,
      rate_limited: 429,
      internal_error: 500,
    };
    for (const [code, status] of Object.entries(expected)) expect(statusOf(code as ErrorCode)).toBe(status);
  });

  test("the response is application/problem+json with the error's headers", async () => {
    const res = problemResponse(new ApiError("rate_limited", "slow down", { retry_after: 3 }, { "retry-after": "3" }), "req_h");
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).toBe("3");
    expect(await res.json()).toMatchObject({ code: "rate_limited", retry_after: 3, request_id: "req_h" });
  });

  test("a 401 always carries WWW-Authenticate; an explicit scheme wins", () => {
    expect(problemResponse(new ApiError("api_key_missing"), "r").headers.get("www-authenticate")).toBe("Bearer");
    const device = problemResponse(new ApiError("invalid_signature", undefined, {}, { "www-authenticate": "HMAC-SHA256" }), "r");
    expect(device.headers.get("www-authenticate")).toBe("HMAC-SHA256");
    expect(problemResponse(new ApiError("not_found"), "r").headers.has("www-authenticate")).toBe(false);
  });
});

describe("validation", () => {
  const Order = T.Object({
    id: T.String({ minLength: 1 }),
    amount: T.Integer({ minimum: 1, maximum: 100_000_000 }),
    note: T.Optional(T.String({ maxLength: 4 })),
  });
  const check = validator(T.Object({ orders: T.Array(Order) }));

  test("valid input passes with unknown fields dropped, at every depth", () => {
    expect(check({ orders: [{ id: "A1", amount: 5, extra: true }], client: "pos" })).toEqual({ orders: [{ id: "A1", amount: 5 }] });
  });

  test("failures are 400 invalid_request with JSON-pointer fields, one entry per field", () => {
    let err: ApiError | undefined;
    try {
      check({ orders: [{ id: "A1", amount: 5 }, { id: "A2", amount: 5 }, { id: "A3", amount: 5 }, { amount: "7", note: "too long" }] });
    } catch (e) {
      err = e as ApiError;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.status).toBe(400);
    expect(err!.code).toBe("invalid_request");
    const fields = (err!.extra.errors as { field: string; message: string }[]).map((e) => e.field);
    expect(fields.sort()).toEqual(["/orders/3/amount", "/orders/3/id", "/orders/3/note"]);
    expect(new Set(fields).size).toBe(fields.length);
    expect(err!.detail).toStartWith("/orders/3/");
  });

  test("a body that is not an object points at the root", () => {
    try {
      check([1, 2]);
      throw new Error("accepted");
    } catch (e) {
      expect((e as ApiError).extra.errors).toContainEqual(expect.objectContaining({ field: "/" }));
    }
  });

  test("a real JSON integer is required: \"5\" and 5.5 are not amounts", () => {
    expect(() => check({ orders: [{ id: "x", amount: "5" }] })).toThrow(ApiError);
    expect(() => check({ orders: [{ id: "x", amount: 5.5 }] })).toThrow(ApiError);
  });

  test("currency other than PEN is unsupported_currency, with the field", () => {
    expect(() => checkCurrency("PEN")).not.toThrow();
    try {
      checkCurrency("USD", "/orders/0/currency");
      throw new Error("accepted");
    } catch (e) {
      const err = e as ApiError;
      expect(err.code).toBe("unsupported_currency");
      expect(err.status).toBe(400);
      expect(err.extra.errors).toEqual([{ field: "/orders/0/currency", message: expect.stringContaining("USD") }]);
    }
  });

  test("invalid() builds the detail from the first field", () => {
    expect(invalid([{ field: "/a", message: "bad" }]).detail).toBe("/a: bad");
    expect(invalid([]).detail).toBe("The request is invalid");
  });
});
