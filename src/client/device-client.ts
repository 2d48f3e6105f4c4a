// A typed client of the device surface, as the phone app behaves (contract §4–§7): it activates,
// keeps its clock offset from server_time, signs every request over the exact bytes it sends, and
// retries what is safe to retry, honouring Retry-After. Used by the end-to-end tests;
// `fetch`, `now` and `sleep` are injectable so tests can drive it without a socket or
// without waiting.
import type { EventReceipt } from "../payments/model";
import type { NotificationReceipt } from "../notifications/model";
import type { License } from "../tenants/service";
import { requestTarget, signRequest, SIGNATURE_ALG } from "../device/signing";

export interface ActivationRequest {
  activation_code: string;
  device_label: string;
  app_version: string;
  platform: "android" | "ios";
  os_version: string;
}

/** The license object of contract §3, as the server describes it. */
export type { License };

export interface DeviceConfig {
  heartbeat_interval_ms: number;
  max_clock_skew_ms: number;
  max_event_bytes: number;
  [key: string]: unknown;
}

export interface Activation {
  device_id: string;
  secret: string;
  tenant_name: string;
  environment: "live" | "test";
  api_base_url: string;
  license: License;
  server_time: number;
  config: DeviceConfig;
}

export interface PaymentEventBody {
  event_id: string;
  kind: "payment.received";
  occurred_at: number;
  source: string;
  amount: number;
  currency: "PEN";
  payer_name?: string;
  security_code?: string;
  reference?: string;
  raw?: { package?: string; title?: string; text?: string };
}

export type { EventReceipt };

/** contract §16: the wallet's notification as the phone saw it; the box reads it. */
export interface NotificationEventBody {
  event_id: string;
  kind: "notification.posted";
  occurred_at: number;
  raw: { package: string; title?: string; text: string };
}

export type { NotificationReceipt };

export interface HeartbeatBody {
  battery_level?: number;
  charging?: boolean;
  notification_access?: boolean;
  listener_connected?: boolean;
  network?: string;
  app_version?: string;
  os_version?: string;
  queue_depth?: number;
  last_notification_at?: number;
  news_after?: string;
}

export interface HeartbeatAnswer {
  server_time: number;
  device: { device_id: string; label: string; status: "active" };
  license: License;
  config: DeviceConfig;
  news: { id: string; level: "info" | "warning" | "critical"; title: string; body: string; published_at: number }[];
}

/** A problem+json body (contract §2.5). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  request_id: string;
  [member: string]: unknown;
}

export interface ClientResponse<T> {
  status: number;
  headers: Headers;
  /** The parsed body: T on success, a Problem otherwise. */
  body: T | Problem;
  ok: boolean;
  /** How many attempts it took (1 = no retry). */
  attempts: number;
}

export interface ClientOptions {
  /** Default: global fetch. Tests pass `(req) => app.handle(req)`. */
  fetch?: (request: Request) => Promise<Response>;
  /** The phone's own clock. Default Date.now. */
  now?: () => number;
  /** Default: a real timer. Tests with a manual clock pass one that moves the clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Attempts after the first, for answers that are safe to retry. Default 5. */
  maxRetries?: number;
}

export interface Credentials {
  deviceId: string;
  secret: string;
  /** api_base_url from the activation: absolute, ending in /device/v1. */
  apiBaseUrl: string;
}

/** Statuses worth another attempt of the same request: the server said "later". */
const RETRY_STATUSES = new Set([409, 429, 500, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;

export class DeviceClient {
  /** server time − phone time, in ms; added to the phone's clock when signing. */
  clockOffsetMs = 0;
  private readonly fetchFn: (request: Request) => Promise<Response>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetries: number;

  constructor(
    readonly credentials: Credentials,
    opts: ClientOptions = {},
  ) {
    this.fetchFn = opts.fetch ?? ((r) => fetch(r));
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((res) => setTimeout(res, ms)));
    this.maxRetries = opts.maxRetries ?? 5;
  }

  /**
   * Links a phone. `serverUrl` is the box's address (e.g. https://192.168.1.20:8443). The clock
   * offset starts from the activation's server_time. Throws DeviceApiError unless 201.
   */
  static async activate(serverUrl: string, request: ActivationRequest, opts: ClientOptions = {}): Promise<{ client: DeviceClient; activation: Activation }> {
    const fetchFn = opts.fetch ?? ((r: Request) => fetch(r));
    const now = opts.now ?? Date.now;
    const sentAt = now();
    const res = await fetchFn(
      new Request(`${serverUrl.replace(/\/+$/, "")}/device/v1/activation`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      }),
    );
    const body = (await readJson(res)) as Activation | Problem;
    if (res.status !== 201) throw new DeviceApiError(res.status, body as Problem);
    const activation = body as Activation;
    const client = new DeviceClient({ deviceId: activation.device_id, secret: activation.secret, apiBaseUrl: activation.api_base_url }, opts);
    client.clockOffsetMs = offsetFrom(activation.server_time, sentAt, now());
    return { client, activation };
  }

  /** GET /time: sets the clock offset from the server's clock (half the round trip assumed each way). */
  async syncClock(): Promise<number> {
    const sentAt = this.now();
    const res = await this.fetchFn(new Request(`${this.credentials.apiBaseUrl}/time`));
    const body = (await readJson(res)) as { server_time: number };
    this.clockOffsetMs = offsetFrom(body.server_time, sentAt, this.now());
    return this.clockOffsetMs;
  }

  /** Server time as this phone believes it. */
  serverNow(): number {
    return this.now() + this.clockOffsetMs;
  }

  sendEvent(event: PaymentEventBody): Promise<ClientResponse<EventReceipt>> {
    return this.signed<EventReceipt>("POST", "/events", event, { "idempotency-key": event.event_id });
  }

  /** Sends a wallet notification for the box to read (contract §16), retried like any event. */
  sendNotification(event: NotificationEventBody): Promise<ClientResponse<NotificationReceipt>> {
    return this.signed<NotificationReceipt>("POST", "/events", event, { "idempotency-key": event.event_id });
  }

  heartbeat(body: HeartbeatBody = {}): Promise<ClientResponse<HeartbeatAnswer>> {
    return this.signed<HeartbeatAnswer>("POST", "/heartbeat", body);
  }

  /** The four headers of contract §5 for one request. */
  signHeaders(method: string, url: string, body: Uint8Array | string, timestamp = this.serverNow()): Record<string, string> {
    const ts = String(Math.round(timestamp));
    return {
      "x-device-id": this.credentials.deviceId,
      "x-timestamp": ts,
      "x-signature-alg": SIGNATURE_ALG,
      "x-signature": signRequest(this.credentials.secret, ts, method, requestTarget(url), body),
    };
  }

  /**
   * Sends a signed request; repeats it (same body, fresh signature) after network errors and after
   * 409/429/5xx, waiting Retry-After when given. A 401 timestamp_out_of_window resets the clock
   * offset from its server_time and is tried once more.
   */
  async signed<T>(method: string, path: string, body: unknown, extraHeaders: Record<string, string> = {}): Promise<ClientResponse<T>> {
    const url = `${this.credentials.apiBaseUrl}${path}`;
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    let clockFixed = false;
    for (let attempt = 1; ; attempt++) {
      const sentAt = this.now();
      let res: Response;
      try {
        res = await this.fetchFn(
          new Request(url, {
            method,
            headers: { "content-type": "application/json", ...extraHeaders, ...this.signHeaders(method, url, bytes) },
            body: bytes,
          }),
        );
      } catch (e) {
        if (attempt > this.maxRetries) throw e;
        await this.sleep(backoff(attempt));
        continue;
      }
      const parsed = (await readJson(res)) as T | Problem;
      const problem = res.ok ? null : (parsed as Problem);
      if (problem?.code === "timestamp_out_of_window" && typeof problem.server_time === "number" && !clockFixed) {
        clockFixed = true;
        this.clockOffsetMs = offsetFrom(problem.server_time, sentAt, this.now());
        continue;
      }
      if (RETRY_STATUSES.has(res.status) && attempt <= this.maxRetries) {
        await this.sleep(retryDelay(res.headers.get("retry-after"), attempt));
        continue;
      }
      return { status: res.status, headers: res.headers, body: parsed, ok: res.ok, attempts: attempt };
    }
  }
}

export class DeviceApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem?.code ?? "error"}: ${problem?.detail ?? ""}`);
  }
}

function offsetFrom(serverTime: number, sentAt: number, receivedAt: number): number {
  return Math.round(serverTime - (sentAt + receivedAt) / 2);
}

function backoff(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, 250 * 2 ** (attempt - 1));
}

/** Retry-After in whole seconds (contract §2.7); without it, exponential backoff. */
function retryDelay(header: string | null, attempt: number): number {
  const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : NaN;
  return Number.isFinite(seconds) ? Math.min(MAX_BACKOFF_MS, seconds * 1000) : backoff(attempt);
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return { type: "about:blank", title: "Not JSON", status: res.status, code: "not_json", request_id: "", detail: text.slice(0, 200) };
  }
}
