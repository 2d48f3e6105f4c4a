// Route documentation. Each route passes `describe({...})` as its options, so its request and
// response schemas, examples and every error it can answer live beside the handler.
// We build the OpenAPI operation ourselves: validation is ours (validation.ts), and the plugin
// would otherwise drop request bodies of routes with a custom parser.
import type { TSchema } from "@sinclair/typebox";
import { ERROR_CODES, type ErrorCode } from "./errors";
import { BODY_LIMITS } from "./body";
import { problemExample } from "./schemas";

/** An error a route can answer, with the extra members its example shows. */
export type ErrorSpec = ErrorCode | [ErrorCode, Record<string, unknown>];

export interface OperationDoc {
  tag: "Device" | "Connector" | "Webhooks" | "System";
  summary: string;
  description?: string;
  operationId?: string;
  body?: TSchema;
  bodyExample?: unknown;
  /** Several named request examples instead of one (each `{summary, value}`). */
  bodyExamples?: Record<string, { summary: string; description?: string; value: unknown }>;
  success: {
    status: number;
    description: string;
    schema: TSchema;
    example?: unknown;
    examples?: Record<string, { summary: string; description?: string; value: unknown }>;
    headers?: Record<string, { description: string; schema?: Record<string, unknown> }>;
  };
  /** Errors this route can answer, beyond the ones every route shares. */
  errors?: ErrorSpec[];
  security?: "device" | "connector";
  /** false for a route that never touches the database: it cannot answer 503 service_unavailable. */
  database?: boolean;
  /** Further responses written out in full (e.g. a non-problem 503). */
  responses?: Record<string, unknown>;
  /**
   * Query and header parameters, and path parameters where they need a description (path parameters
   * are derived from the route; one given here replaces the derived one of its name).
   */
  parameters?: Record<string, unknown>[];
}

/** Where an operation keeps its own parameters until finishDocument merges them with the path's. */
export const OWN_PARAMETERS = "x-own-parameters";

const RETRY_AFTER = { "Retry-After": { description: "Whole seconds to wait", schema: { type: "integer" } } };

function errorResponses(specs: ErrorSpec[]): Record<string, unknown> {
  const byStatus = new Map<number, Record<string, { value: unknown; summary: string }>>();
  for (const spec of specs) {
    const [code, extra] = Array.isArray(spec) ? spec : [spec, {}];
    const status = ERROR_CODES[code][0];
    const examples = byStatus.get(status) ?? {};
    examples[code] = { summary: code, value: problemExample(code, extra) };
    byStatus.set(status, examples);
  }
  const out: Record<string, unknown> = {};
  for (const [status, examples] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: Object.keys(examples).map((c) => `\`${c}\``).join(", "),
      ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
      ...(status === 401 ? { headers: { "WWW-Authenticate": { description: "`HMAC-SHA256` (device) or `Bearer` (connector)", schema: { type: "string" } } } } : {}),
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" }, examples } },
    };
  }
  return out;
}

export function describe(doc: OperationDoc): { detail: Record<string, unknown> } {
  const own = new Set((doc.errors ?? []).map((e) => (Array.isArray(e) ? e[0] : e)));
  const shared: ErrorSpec[] = (doc.body ? (["malformed_json", "unsupported_media_type", ["payload_too_large", { max_bytes: BODY_LIMITS.device }]] as ErrorSpec[]) : []).filter(
    (e) => !own.has(Array.isArray(e) ? e[0] : e), // a route may document its own limit
  );
  // Any route that reads or writes the database answers 503 service_unavailable (Retry-After) when
  // the write lock stayed taken past busy_timeout (isDatabaseBusy).
  const errors: ErrorSpec[] = [...(doc.errors ?? []), ...shared, "internal_error", ...(doc.database === false ? [] : ["service_unavailable" as const])];
  const detail: Record<string, unknown> = {
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.operationId ? { operationId: doc.operationId } : {}),
    // The plugin replaces `parameters` by the path's own on a route with path parameters; the copy
    // under OWN_PARAMETERS is merged back when the document is finished (system/openapi-document.ts).
    ...(doc.parameters ? { parameters: doc.parameters, [OWN_PARAMETERS]: doc.parameters } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: doc.body,
                ...(doc.bodyExample !== undefined ? { example: doc.bodyExample } : {}),
                ...(doc.bodyExamples ? { examples: doc.bodyExamples } : {}),
              },
            },
          },
        }
      : {}),
    responses: {
      [String(doc.success.status)]: {
        description: doc.success.description,
        ...(doc.success.headers ? { headers: doc.success.headers } : {}),
        content: {
          "application/json": {
            schema: doc.success.schema,
            ...(doc.success.example !== undefined ? { example: doc.success.example } : {}),
            ...(doc.success.examples ? { examples: doc.success.examples } : {}),
          },
        },
      },
      ...errorResponses(errors),
      ...(doc.responses ?? {}),
    },
    security: doc.security === "device" ? [{ DeviceSignature: [] }] : doc.security === "connector" ? [{ ConnectorKey: [] }, { ConnectorKeyBasic: [] }] : [],
  };
  return { detail };
}
