// Schema pieces shared by both surfaces. Integers use TypeBox's own Integer: Elysia's `t.Integer`
// would accept "5" as 5, and the contract wants real JSON integers.
import { Type, type TSchema } from "@sinclair/typebox";
import { MAX_AMOUNT } from "../matching/engine";
import { ApiError, ERROR_CODES, problemBody, type ErrorCode } from "./errors";

export { MAX_AMOUNT };

export { Type as T };

export const Int = (opts: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer(opts);
/** The largest time a JavaScript Date can hold. */
export const MAX_EPOCH_MS = 8_640_000_000_000_000;
export const EpochMs = (description = "Epoch milliseconds, UTC") =>
  Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, description, examples: [1795262400000] });
/** contract §2.3: amounts are integer cents from 1 to 100 000 000. */
export const Amount = () =>
  Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: "Integer amount in cents (1 to 100 000 000)", examples: [2500] });
// `const` for the document and generated clients; TypeBox does not check it on a string, so any
// other value still reaches checkCurrency and its own code (contract §2.3).
export const Currency = () => Type.String({ const: "PEN", description: "Always `PEN`; anything else is `400 unsupported_currency`", examples: ["PEN"] });
export const Environment = () => Type.Union([Type.Literal("live"), Type.Literal("test")], { description: "`live` or `test`" });
export const Nullable = <S extends TSchema>(s: S) => Type.Union([s, Type.Null()]);
/** A value or null, with what it means (the document describes the union, not its parts). */
export const OrNull = <S extends TSchema>(s: S, description: string) => Type.Union([s, Type.Null()], { description });

/**
 * Names schemas for the OpenAPI document: each becomes components.schemas.<name>, referenced where
 * it is used (system/openapi-document.ts), so that a generated client gets one named type per
 * object. The schemas themselves, and what they validate, are unchanged.
 */
export function named(schemas: Record<string, TSchema>): void {
  for (const [name, schema] of Object.entries(schemas)) Object.assign(schema, { $id: `#/components/schemas/${name}` });
}

export const LicenseSchema = Type.Object(
  {
    status: Type.Union([Type.Literal("active"), Type.Literal("suspended")]),
    reason: Nullable(Type.Union([Type.Literal("suspended"), Type.Literal("expired")])),
    plan: Type.String(),
    max_devices: Type.Integer(),
    devices_in_use: Type.Integer(),
    expires_at: Nullable(Type.Integer()),
  },
  {
    $id: "#/components/schemas/License",
    description: "A license past `expires_at` reads as `status: suspended`, `reason: expired`.",
    examples: [{ status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 1, expires_at: null }],
  },
);

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({ description: "JSON pointer of the refused field, e.g. `/orders/3/amount` (`/` for the whole body)" }),
    message: Type.String({ description: "What is wrong with it, for people" }),
  },
  { $id: "#/components/schemas/FieldError", description: "One refused field of a request" },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.Optional(Type.String({ description: "`urn:cuadra:error:<code>`; absent on 5xx", examples: ["urn:cuadra:error:invalid_request"] })),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    code: Type.String({ description: "Machine code; clients branch on it", enum: Object.keys(ERROR_CODES) }),
    request_id: Type.String({ examples: ["req_4cT1bX0d2mQ8rZ7yK3wP"] }),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { description: "For `invalid_request` and `invalid_cursor`: each field that was refused" })),
  },
  { additionalProperties: true, description: "RFC 9457 problem details; some codes add members (see each response)." },
);
named({ Problem: ProblemSchema });

/** Example problem bodies for the docs, one per code, rendered by the real renderer. */
export function problemExample(code: ErrorCode, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return problemBody(new ApiError(code, undefined, extra), "req_4cT1bX0d2mQ8rZ7yK3wP");
}
