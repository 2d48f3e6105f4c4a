// Query strings of the connector's list endpoints, validated like bodies (400 invalid_request with
// JSON-pointer fields such as `/limit`). Values arrive as text; nothing is coerced silently. `after`
// is passed on as it came: the cursor decoder (cursor.ts) answers `400 invalid_cursor`.
import { T } from "../http/schemas";
import type { OrderStatus } from "../matching/engine";
import type { OrderListQuery } from "./orders.service";
import { invalid, validator } from "../http/validation";
import { MATCH_STATUSES, ORDER_STATUSES, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from "./model";

export const LimitParam = {
  name: "limit",
  in: "query",
  required: false,
  description: `Page size, 1–${PAGE_LIMIT_MAX} (default ${PAGE_LIMIT_DEFAULT})`,
  schema: { type: "integer", minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT },
};

export const afterParam = (description: string) => ({
  name: "after",
  in: "query",
  required: false,
  description,
  schema: { type: "string" },
});

export const StatusParam = {
  name: "status",
  in: "query",
  required: false,
  description: "Only events with this match status",
  schema: { type: "string", enum: [...MATCH_STATUSES] },
};

const pageQueryOf = <S extends string>(statuses: readonly S[]) =>
  validator(
    T.Object({
      // Any text: whether it is a cursor (empty, too long, not ours) is the cursor decoder's call, so a
      // malformed one is `400 invalid_cursor` (contract §11), never `invalid_request`.
      after: T.Optional(T.String()),
      status: T.Optional(T.Union(statuses.map((s) => T.Literal(s)))),
    }),
  ) as (v: unknown) => { after?: string; status?: S };

export interface PageQuery<S extends string = (typeof MATCH_STATUSES)[number]> {
  after?: string;
  limit: number;
  status?: S;
}

/** The query of a list whose `status` is one of `statuses` (webhook messages: pending, succeeded, failed). */
export function pageQueryWith<S extends string>(statuses: readonly S[]): (request: Request) => PageQuery<S> {
  const check = pageQueryOf(statuses);
  return (request) => readPageQuery(request, check);
}

const checkPageQuery = pageQueryOf(MATCH_STATUSES);

/** Reads `after`, `limit` and `status` (a match status) from the request's own query string. */
export function pageQuery(request: Request): PageQuery {
  return readPageQuery(request, checkPageQuery);
}

function readPageQuery<S extends string>(request: Request, checkPageQuery: (v: unknown) => { after?: string; status?: S }): PageQuery<S> {
  const params = new URL(request.url).searchParams;
  const raw: Record<string, string> = {};
  for (const key of ["after", "limit", "status"]) {
    const v = params.get(key);
    if (v !== null) raw[key] = v;
  }
  const { limit: limitText, ...rest } = raw;
  const q = checkPageQuery(rest);
  return { after: q.after, limit: readLimit(limitText), status: q.status };
}

/** An integer, as documented (LimitParam): written in plain digits, from 1 to PAGE_LIMIT_MAX. */
function readLimit(limitText: string | undefined): number {
  const limit = limitText === undefined ? PAGE_LIMIT_DEFAULT : /^[0-9]{1,6}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= 1 && limit <= PAGE_LIMIT_MAX)) {
    throw invalid([{ field: "/limit", message: `must be a whole number from 1 to ${PAGE_LIMIT_MAX}` }]);
  }
  return limit;
}

export const OrderStatusParam = {
  name: "status",
  in: "query",
  required: false,
  description:
    "Only orders with this status, as the order reads now (a pending order past `expires_at` is `expired`). Repeat it for several: `?status=pending&status=expired`. Without it, every status.",
  schema: { type: "array", items: { type: "string", enum: [...ORDER_STATUSES] } },
  style: "form",
  explode: true,
};

/** contract §19: `status` (repeatable), `after` and `limit` of the orders list. */
export function orderListQuery(request: Request): OrderListQuery {
  const params = new URL(request.url).searchParams;
  const statuses: OrderStatus[] = [];
  for (const s of params.getAll("status")) {
    if (!(ORDER_STATUSES as readonly string[]).includes(s)) {
      throw invalid([{ field: "/status", message: `${JSON.stringify(s)} is not one of ${ORDER_STATUSES.join(", ")}` }]);
    }
    if (!statuses.includes(s as OrderStatus)) statuses.push(s as OrderStatus);
  }
  return { statuses, after: params.get("after") ?? undefined, limit: readLimit(params.get("limit") ?? undefined) };
}

/** `device_id` of `GET /events/{event_id}`: only needed when two phones sent the same event_id. */
export function deviceIdQuery(request: Request): string | undefined {
  const deviceId = new URL(request.url).searchParams.get("device_id");
  if (deviceId === null) return undefined;
  if (deviceId.length < 1 || deviceId.length > 64) throw invalid([{ field: "/device_id", message: "must be 1 to 64 characters" }]);
  return deviceId;
}

export const DeviceIdParam = {
  name: "device_id",
  in: "query",
  required: false,
  description: "The phone (`dev_…`) that sent the event: only needed when two phones sent events with the same `event_id`",
  schema: { type: "string", minLength: 1, maxLength: 64 },
};
