// A typed client of the device surface, as the phone app behaves (contract §4–§7, §17): it pairs
// from a pairing URI and then talks only to the box with the pinned certificate, keeps its clock
// offset from server_time, signs every request over the exact bytes it sends, retries what is safe
// to retry honouring Retry-After, finds its box again on the local network when it does not answer,
// and keeps every event it could not deliver until the box accepts it. Used by the end-to-end
// tests; `fetch`, `now`, `sleep` and `discover` are injectable so tests can drive it without a
// socket or without waiting.
import type { EventReceipt } from "../payments/model";
import type { NotificationReceipt } from "../notifications/model";
import type { License } from "../tenants/service";
import { requestTarget, signRequest, SIGNATURE_ALG } from "../device/signing";
import { parsePairingUri } from "../pairing/uri";
import { discoverBox } from "./discover";
import { pinnedFetch } from "./pinning";

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
  /** contract §17: SHA-256 of the box's certificate, or null without TLS. */
  tls_fingerprint: string | null;
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
  /**
   * Finds the box announcing this fingerprint on the local network (contract §17) and gives its base
   * URL, or null. Default: browse `_cuadra._tcp` with multicast DNS, for a pinned client.
   */
  discover?: (fp: string) => Promise<string | null>;
  /** Events not yet delivered, e.g. as the app saved them before it was stopped. */
  queue?: QueuedEvent[];
}

export interface Credentials {
  deviceId: string;
  secret: string;
  /** api_base_url from the activation: absolute, ending in /device/v1. */
  apiBaseUrl: string;
  /** The pinned certificate fingerprint (contract §17); absent or null for a box without TLS. */
  tlsFingerprint?: string | null;
}

export type QueuedEvent = PaymentEventBody | NotificationEventBody;


export interface FlushReport {
  delivered: number;
  /** Events the box refused for what they are (400, 413, 415, 422); resending cannot help. */
  rejected: { event: QueuedEvent; status: number; code: string }[];
  /** Events still queued. */
  remaining: number;
  /** Why sending stopped with events queued: "unreachable", or the box's code (e.g. "license_suspended"). */
  blocked: string | null;
}

/** Statuses worth another attempt of the same request: the server said "later". */
const RETRY_STATUSES = new Set([409, 429, 500, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;
/**
 * Answers that refuse the event itself, so that sending it again cannot succeed. After any other
 * answer that is not a success (401/403: license suspended, phone revoked, clock; 409/429/5xx) the
 * event stays queued: the box may take it later, unchanged.
 */
const REFUSES_THE_EVENT = new Set([400, 413, 415, 422]);

export class DeviceClient {
  /** server time − phone time, in ms; added to the phone's clock when signing. */
  clockOffsetMs = 0;
  /** Events not yet delivered, oldest first; the app saves it, and passes it back as `opts.queue`. */
  readonly queue: QueuedEvent[];
  private readonly fetchFn: (request: Request) => Promise<Response>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetries: number;
  private readonly discover: ((fp: string) => Promise<string | null>) | null;

  constructor(
    readonly credentials: Credentials,
    opts: ClientOptions = {},
  ) {
    const fp = credentials.tlsFingerprint ?? null;
    this.fetchFn = opts.fetch ?? defaultFetch(fp);
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((res) => setTimeout(res, ms)));
    this.maxRetries = opts.maxRetries ?? 5;
    this.discover = opts.discover ?? (fp ? discoverBox : null);
    this.queue = [...(opts.queue ?? [])];
  }

  /**
   * Pairs a phone from the pairing URI the box shows (contract §17): activates with its code over TLS
   * pinned to its `fp`, and checks that the box gives the same fingerprint in its answer. The client
   * talks to that box only, wherever it moves. Throws DeviceApiError unless 201, PinMismatchError if
   * the box at the URI's address is another one.
   */
  static async pair(
    pairingUri: string,
    device: Omit<ActivationRequest, "activation_code">,
    opts: ClientOptions = {},
  ): Promise<{ client: DeviceClient; activation: Activation }> {
    const { url, code, fp } = parsePairingUri(pairingUri);
    const fetchFn = opts.fetch ?? defaultFetch(fp);
    const paired = await DeviceClient.activate(url, { ...device, activation_code: code }, { ...opts, fetch: fetchFn }, fp);
    if (paired.activation.tls_fingerprint !== fp) {
      throw new Error(`the box answered with fingerprint ${paired.activation.tls_fingerprint}, not the ${fp} of the pairing URI`);
    }
    return paired;
  }

  /**
   * Links a phone with a code typed by hand. `serverUrl` is the box's address (e.g.
   * http://192.168.1.20:8443 for a box without TLS; a box with TLS is paired with `pair`, which
   * knows its fingerprint). The clock offset starts from the activation's server_time. Throws
   * DeviceApiError unless 201.
   */
  static async activate(
    serverUrl: string,
    request: ActivationRequest,
    opts: ClientOptions = {},
    tlsFingerprint: string | null = null,
  ): Promise<{ client: DeviceClient; activation: Activation }> {
    const fetchFn = opts.fetch ?? defaultFetch(tlsFingerprint);
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
    const client = new DeviceClient(
      { deviceId: activation.device_id, secret: activation.secret, apiBaseUrl: activation.api_base_url, tlsFingerprint },
      { ...opts, fetch: fetchFn },
    );
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

  /** Sends a payment now; it stays queued until the box has it (see `flush`). */
  sendEvent(event: PaymentEventBody): Promise<ClientResponse<EventReceipt>> {
    return this.deliver<EventReceipt>(event);
  }

  /** Sends a wallet notification for the box to read (contract §16), kept like any event. */
  sendNotification(event: NotificationEventBody): Promise<ClientResponse<NotificationReceipt>> {
    return this.deliver<NotificationReceipt>(event);
  }

  /**
   * A heartbeat. One that the box accepts means the license is active and the phone known, so the
   * events kept while the box refused them (403 license_suspended) or could not be reached are sent
   * again before this returns.
   */
  async heartbeat(body: HeartbeatBody = {}): Promise<ClientResponse<HeartbeatAnswer>> {
    const res = await this.signed<HeartbeatAnswer>("POST", "/heartbeat", body);
    if (res.status === 200 && this.queue.length > 0) await this.flush();
    return res;
  }

  /**
   * Sends the queued events, oldest first, each with its own event_id (the box stores each once, so
   * sending one again is harmless). Stops at the first one the box cannot take now (unreachable,
   * license suspended, phone revoked or unknown) and keeps it and the rest; an event the box refuses
   * for what it is (400, 413, 415, 422) is dropped from the queue and reported, since sending it
   * again cannot succeed.
   */
  async flush(): Promise<FlushReport> {
    const report: FlushReport = { delivered: 0, rejected: [], remaining: 0, blocked: null };
    for (const event of [...this.queue]) {
      let res: ClientResponse<unknown>;
      try {
        res = await this.deliver(event);
      } catch {
        report.blocked = "unreachable";
        break;
      }
      if (res.ok) report.delivered++;
      else if (this.queue.includes(event)) {
        report.blocked = (res.body as Problem | null)?.code ?? String(res.status);
        break;
      } else report.rejected.push({ event, status: res.status, code: (res.body as Problem | null)?.code ?? "" });
    }
    report.remaining = this.queue.length;
    return report;
  }

  /** Queues the event (once per event_id), sends it, and keeps it queued unless the box took or refused it for good. */
  private async deliver<T>(event: QueuedEvent): Promise<ClientResponse<T>> {
    if (!this.queue.some((q) => q.event_id === event.event_id)) this.queue.push(event);
    const res = await this.signed<T>("POST", "/events", event, { "idempotency-key": event.event_id }); // a network error keeps it
    if (res.ok || REFUSES_THE_EVENT.has(res.status)) {
      const at = this.queue.findIndex((q) => q.event_id === event.event_id);
      if (at >= 0) this.queue.splice(at, 1);
    }
    return res;
  }

  /** Whether the box was found at another address (and the client moved there). */
  private findBox(): Promise<boolean> {
    return this.discover ? findBoxFor(this, this.discover) : Promise.resolve(false);
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
    let url = `${this.credentials.apiBaseUrl}${path}`;
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    let clockFixed = false;
    let searched = false;
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
        // contract §17: the box may have moved; look for it on the local network, once per request.
        if (!searched && (await this.findBox())) {
          searched = true;
          url = `${this.credentials.apiBaseUrl}${path}`;
          continue;
        }
        searched = true;
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

/**
 * Browses for the box with the pinned fingerprint; if it answers at another address, the client
 * moves there (the app saves `credentials.apiBaseUrl`). Whether it moved.
 */
async function findBoxFor(client: DeviceClient, discover: (fp: string) => Promise<string | null>): Promise<boolean> {
  const fp = client.credentials.tlsFingerprint;
  if (!fp) return false;
  const found = await discover(fp).catch(() => null);
  if (!found) return false;
  const apiBaseUrl = `${found}${new URL(client.credentials.apiBaseUrl).pathname.replace(/\/+$/, "")}`;
  if (apiBaseUrl === client.credentials.apiBaseUrl) return false;
  client.credentials.apiBaseUrl = apiBaseUrl;
  return true;
}

/** Global fetch, pinned to the box's certificate when there is one to pin. */
function defaultFetch(fp: string | null): (request: Request) => Promise<Response> {
  return fp ? pinnedFetch(fp) : (r) => fetch(r);
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
