// The OpenAPI document as clients read it (GET /docs/json): the plugin's document of every route
// (http/openapi.ts describes each one), finished here once, in one pass that every route gets:
// - named schemas (http/schemas.ts `named`) become components.schemas.<Name>, referenced where used;
// - every property says what it is (its own description, else FIELD_DESCRIPTIONS);
// - every response says X-Request-Id; 429 and 503 say Retry-After and the RateLimit headers;
// - every operation answers 404 not_found (an unknown path) and 405 method_not_allowed;
// - an operation's own parameters (http/openapi.ts) are kept beside the path parameters the plugin
//   derives on routes that have some (it drops the route's own there);
// - `servers` is the box's public URL, or the origin the document was asked from.
import { OWN_PARAMETERS } from "../http/openapi";
import { problemExample } from "../http/schemas";
import { FIELD_DESCRIPTIONS } from "./field-descriptions";

type Json = Record<string, any>;

const REF_PREFIX = "#/components/schemas/";

const HEADER = (description: string, schema: Json = { type: "string" }) => ({ description, schema });
const REQUEST_ID = HEADER("The request's id (`req_…`), or the client's own `X-Request-Id` of at most 64 of `[A-Za-z0-9._-]`. Quote it when asking for help.", {
  type: "string",
  examples: ["req_4cT1bX0d2mQ8rZ7yK3wP"],
});
const RATE_LIMIT_HEADERS = {
  "RateLimit-Policy": HEADER('The bucket that applies, IETF httpapi draft syntax: `"device";q=30;w=10`'),
  RateLimit: HEADER('What is left of it: `"device";r=0;t=4` (remaining, seconds until a token is back)'),
};
const RETRY_AFTER = HEADER("Whole seconds to wait before trying again (at least 1)", { type: "integer", minimum: 1 });

/** The finished document, without `servers` (added per request by withServers). */
export function finishDocument(raw: Json): Json {
  const doc: Json = structuredClone(raw);
  const schemas: Json = (doc.components ??= {}).schemas ?? {};
  doc.components.schemas = schemas;
  // Named schemas already in components are their own definitions.
  for (const [name, schema] of Object.entries(schemas)) {
    if (schema && typeof schema === "object") delete (schema as Json).$id;
    schemas[name] = hoist(schema, schemas);
  }
  doc.paths = hoist(doc.paths, schemas);
  for (const [name, schema] of Object.entries(schemas)) describeProperties(schema as Json, name);
  for (const item of Object.values(doc.paths ?? {}) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      if (!op || typeof op !== "object" || !op.responses) continue;
      finishOperation(op);
      walkInline(op, (s) => describeProperties(s, undefined));
    }
  }
  doc.tags = [...(doc.tags ?? [])].sort((a: Json, b: Json) => TAG_ORDER.indexOf(a.name) - TAG_ORDER.indexOf(b.name));
  return doc;
}

/** The shop's software reads this page first: its operations lead. */
const TAG_ORDER = ["Connector", "Webhooks", "Device", "System"];

export function withServers(doc: Json, url: string): Json {
  return { ...doc, servers: [{ url, description: "This box" }] };
}

/** Replaces every schema carrying `$id: #/components/schemas/Name` by a $ref, moving it into `schemas`. */
function hoist(node: any, schemas: Json): any {
  if (Array.isArray(node)) return node.map((n) => hoist(n, schemas));
  if (!node || typeof node !== "object") return node;
  const id = node.$id;
  if (typeof id === "string" && id.startsWith(REF_PREFIX)) {
    const name = id.slice(REF_PREFIX.length);
    const { $id: _, ...definition } = node;
    const body = hoist(definition, schemas);
    const existing = schemas[name];
    if (existing === undefined || JSON.stringify(existing) === JSON.stringify(body)) {
      schemas[name] = body;
      return { $ref: id };
    }
    return body; // a derived schema that kept the name but changed (Omit, Composite): stays inline
  }
  if (typeof id === "string") {
    const { $id: _, ...rest } = node; // any other $id is not for the document
    return hoist(rest, schemas);
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === "example" || k === "examples" ? v : hoist(v, schemas);
  return out;
}

function describeProperties(schema: Json, owner: string | undefined): void {
  if (!schema || typeof schema !== "object") return;
  if (schema.properties) {
    for (const [prop, s] of Object.entries(schema.properties) as [string, Json][]) {
      if (!s.description) {
        const text = (owner && FIELD_DESCRIPTIONS[`${owner}.${prop}`]) ?? FIELD_DESCRIPTIONS[prop];
        if (text) s.description = text;
      }
      describeProperties(s, undefined);
    }
  }
  for (const key of ["items", "additionalProperties"]) if (schema[key] && typeof schema[key] === "object") describeProperties(schema[key], undefined);
  for (const key of ["anyOf", "oneOf", "allOf"]) for (const s of schema[key] ?? []) describeProperties(s, owner);
}

/** Calls `visit` on every schema inside an operation (request body, parameters, responses). */
function walkInline(node: any, visit: (schema: Json) => void): void {
  if (Array.isArray(node)) return node.forEach((n) => walkInline(n, visit));
  if (!node || typeof node !== "object") return;
  if (node.schema && typeof node.schema === "object") visit(node.schema);
  for (const [k, v] of Object.entries(node)) if (k !== "example" && k !== "examples") walkInline(v, visit);
}

/** The path parameters the plugin derived, each replaced by the operation's own of the same name, then its other own ones. */
function mergeParameters(op: Json): void {
  const own: Json[] | undefined = op[OWN_PARAMETERS];
  delete op[OWN_PARAMETERS];
  if (!own) return;
  const key = (p: Json) => `${p.in}:${p.name}`;
  const ownKeys = new Set(own.map(key));
  op.parameters = [...(op.parameters ?? []).filter((p: Json) => !ownKeys.has(key(p))), ...own];
}

function finishOperation(op: Json): void {
  mergeParameters(op);
  const responses: Json = op.responses;
  // contract §2.5: an unknown path is 404 not_found; a known path with another method 405.
  const notFound = responses["404"] ?? { description: "", content: { "application/problem+json": { schema: { $ref: `${REF_PREFIX}Problem` }, examples: {} } } };
  const examples: Json = notFound.content["application/problem+json"].examples ?? {};
  if (!examples.not_found) {
    examples.not_found = { summary: "not_found", value: problemExample("not_found", {}) };
    notFound.content["application/problem+json"].examples = examples;
    notFound.description = [notFound.description, "`not_found` (a path that does not exist, e.g. a typo)"].filter(Boolean).join(", ");
  }
  responses["404"] = notFound;
  responses["405"] ??= {
    description: "`method_not_allowed`: the path exists, the method does not (`Allow` lists the methods it takes)",
    headers: { Allow: HEADER("The methods this path takes, e.g. `GET, POST`") },
    content: {
      "application/problem+json": {
        schema: { $ref: `${REF_PREFIX}Problem` },
        examples: { method_not_allowed: { summary: "method_not_allowed", value: problemExample("method_not_allowed", {}) } },
      },
    },
  };
  const inUse = responses["409"]?.content?.["application/problem+json"]?.examples?.idempotency_key_in_use;
  for (const [status, response] of Object.entries(responses) as [string, Json][]) {
    response.headers = { "X-Request-Id": REQUEST_ID, ...(response.headers ?? {}) };
    if (status === "429") Object.assign(response.headers, { "Retry-After": RETRY_AFTER, ...RATE_LIMIT_HEADERS });
    if (status === "503" && response.content?.["application/problem+json"]) response.headers["Retry-After"] = RETRY_AFTER;
    if (status === "409" && inUse) {
      response.headers["Retry-After"] = HEADER("With `idempotency_key_in_use`: whole seconds to wait (1) before sending the same event again", { type: "integer" });
    }
    if (/^2/.test(status) && responses["429"]) Object.assign(response.headers, RATE_LIMIT_HEADERS);
  }
}
