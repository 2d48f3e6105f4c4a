// Request validation with TypeBox (the schemas Elysia's `t` builds), done by us rather than by
// Elysia so that every failure is the contract's `400 invalid_request` with JSON-pointer fields
// (contract §2.5) and unknown fields are dropped, never rejected (§2.2).
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { ApiError, type ErrorCode, type FieldError } from "./errors";

const MAX_FIELD_ERRORS = 50;

export type Validator<T extends TSchema> = (value: unknown) => Static<T>;

/** Compiles a schema once; the returned function checks, strips unknown fields, or throws 400. */
export function validator<T extends TSchema>(schema: T): Validator<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (value) => {
    if (compiled.Check(value)) return Value.Clean(schema, value) as Static<T>;
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    for (const e of compiled.Errors(value)) {
      const field = e.path === "" ? "/" : e.path;
      if (seen.has(field)) continue; // TypeBox reports a missing property more than once
      seen.add(field);
      errors.push({ field, message: e.message });
      if (errors.length >= MAX_FIELD_ERRORS) break;
    }
    throw invalid(errors);
  };
}

export function invalid(errors: FieldError[], code: ErrorCode = "invalid_request"): ApiError {
  const first = errors[0];
  const detail = first ? `${first.field}: ${first.message}` : "The request is invalid";
  return new ApiError(code, detail, { errors });
}

/** contract §2.3: currency is PEN; any other value is its own error code. */
export function checkCurrency(currency: string, field = "/currency"): void {
  if (currency !== "PEN") {
    throw invalid([{ field, message: `Only PEN is supported, not ${JSON.stringify(currency)}` }], "unsupported_currency");
  }
}
