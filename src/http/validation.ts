// Request validation with TypeBox (the schemas Elysia's `t` builds), done by us rather than by
// Elysia so that every failure is the contract's `400 invalid_request` with JSON-pointer fields
// (contract §2.5) and unknown fields are dropped, never rejected (§2.2).
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { ApiError, type ErrorCode, type FieldError } from "./errors";

const MAX_FIELD_ERRORS = 50;

export type Validator<T extends TSchema> = (value: unknown) => Static<T>;

/**
 * Compiles a schema once; the returned function checks, strips unknown fields, or throws 400.
 * `maxLength` counts characters (code points), as the document says, not UTF-16 units as TypeBox
 * does: the compiled check allows twice the units (a character is at most two), and the lengths
 * are then counted in characters (characterLengths), each refusal saying the limit it passed.
 */
export function validator<T extends TSchema>(schema: T): Validator<T> {
  const compiled = TypeCompiler.Compile(withUnitLimits(schema));
  return (value) => {
    const errors: FieldError[] = [];
    if (compiled.Check(value)) {
      characterLengths(schema, value, "", errors);
      if (errors.length === 0) return Value.Clean(schema, value) as Static<T>;
      throw invalid(errors.slice(0, MAX_FIELD_ERRORS));
    }
    // Length refusals first: they name the limit, where TypeBox may only say "Expected union value".
    characterLengths(schema, value, "", errors);
    const seen = new Set<string>();
    for (const e of compiled.Errors(value)) {
      const field = e.path === "" ? "/" : e.path;
      if (seen.has(field)) continue; // TypeBox reports a missing property more than once
      seen.add(field);
      const max = (e.schema as { maxLength?: number }).maxLength;
      errors.push({ field, message: typeof e.value === "string" && max !== undefined ? `must be at most ${max / 2} characters` : e.message });
      if (errors.length >= MAX_FIELD_ERRORS) break;
    }
    throw invalid(dedupe(errors).slice(0, MAX_FIELD_ERRORS));
  };
}

/** The first error per field, in order. */
function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(e.field) && seen.add(e.field));
}

/** A copy of `schema` whose maxLength limits are in UTF-16 units: twice the characters. */
function withUnitLimits<S extends TSchema>(schema: S): S {
  const copy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(copy);
    if (!node || typeof node !== "object") return node;
    const out: Record<PropertyKey, unknown> = {};
    for (const key of Reflect.ownKeys(node)) out[key] = copy((node as Record<PropertyKey, unknown>)[key]); // Kind symbols included
    if (typeof out.maxLength === "number") out.maxLength = out.maxLength * 2;
    return out;
  };
  return copy(schema) as S;
}

/**
 * Adds an error for each string of `value` longer, in characters, than its schema's maxLength
 * (through objects, arrays and unions such as nullable strings). A field already refused by the
 * compiled check is not reported twice (dedupe).
 */
function characterLengths(schema: TSchema, value: unknown, path: string, errors: FieldError[]): void {
  const s = schema as TSchema & { maxLength?: number; properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[] };
  if (typeof value === "string") {
    const limits = [s, ...(s.anyOf ?? [])].map((b) => (b as { maxLength?: number }).maxLength).filter((m): m is number => m !== undefined);
    if (limits.length > 0 && [...value].length > Math.max(...limits)) errors.push({ field: path || "/", message: `must be at most ${Math.max(...limits)} characters` });
    return;
  }
  if (Array.isArray(value)) {
    const items = s.items ?? s.anyOf?.find((b) => (b as { items?: TSchema }).items)?.["items" as never];
    if (items) value.forEach((v, i) => characterLengths(items as TSchema, v, `${path}/${i}`, errors));
    return;
  }
  if (value && typeof value === "object") {
    const props = s.properties ?? (s.anyOf?.find((b) => (b as { properties?: unknown }).properties) as { properties?: Record<string, TSchema> } | undefined)?.properties;
    if (!props) return;
    for (const [k, sub] of Object.entries(props)) {
      if (k in (value as object)) characterLengths(sub, (value as Record<string, unknown>)[k], `${path}/${k}`, errors);
    }
  }
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
