// Helpers for device-surface tests through app.handle: activate a phone, sign requests by hand.
import { DeviceClient, type ClientOptions, type PaymentEventBody } from "../../src/client/device-client";
import { createActivationCode } from "../../src/device/codes";
import type { Environment } from "../../src/store/schema";
import type { TestApp, TestResponse } from "./harness";

/** Client options that route through app.handle and move the manual clock instead of sleeping. */
export function clientOptions(t: TestApp, ip = "127.0.0.1"): ClientOptions {
  return {
    fetch: (r) => t.app.handle(r, ip),
    now: () => t.clock.now(),
    // Move the clock instead of waiting, and let the writes already handed over commit.
    sleep: async (ms) => {
      t.clock.advance(ms);
      await t.writer.idle();
    },
  };
}

export interface Phone {
  client: DeviceClient;
  deviceId: string;
  secret: string;
  tenantId: string;
  environment: Environment;
}

/** A tenant (new unless given) and one activated phone of it. */
export async function activatePhone(t: TestApp, opts: { tenantId?: string; environment?: Environment; label?: string } = {}): Promise<Phone> {
  const tenantId = opts.tenantId ?? t.tenant().tenant_id;
  const environment = opts.environment ?? "live";
  const code = createActivationCode(t.store.db, t.clock, tenantId, environment);
  const { client, activation } = await DeviceClient.activate(
    "http://localhost",
    { activation_code: code.code, device_label: opts.label ?? "Caja 1", app_version: "1.4.0", platform: "android", os_version: "14" },
    clientOptions(t),
  );
  return { client, deviceId: activation.device_id, secret: activation.secret, tenantId, environment };
}

let counter = 0;

/** A valid payment event; `over` replaces fields. */
export function paymentEvent(t: TestApp, over: Partial<PaymentEventBody> & Record<string, unknown> = {}): PaymentEventBody {
  counter += 1;
  return {
    event_id: `evt-${counter}-${crypto.randomUUID()}`,
    kind: "payment.received",
    occurred_at: t.clock.now() - 5_000,
    source: "yape",
    amount: 2500,
    currency: "PEN",
    payer_name: "Yanina Man*",
    security_code: "482",
    ...over,
  } as PaymentEventBody;
}

export interface SignedOptions {
  /** Raw body text (default: JSON of `body`). */
  raw?: string;
  body?: unknown;
  /** Headers to add or override (value null removes one). */
  headers?: Record<string, string | null>;
  timestamp?: number;
  /** Sign with this secret instead of the phone's. */
  secret?: string;
  ip?: string;
  /** The request target sent (default `path`), e.g. with a query string. */
  target?: string;
}

/** A signed request with full control of headers and bytes. */
export async function signedRequest(t: TestApp, phone: Phone, method: string, path: string, o: SignedOptions = {}): Promise<TestResponse> {
  const raw = o.raw ?? (o.body === undefined ? "" : JSON.stringify(o.body));
  const url = `http://localhost${o.target ?? path}`;
  const signer = o.secret ? new DeviceClient({ ...phone.client.credentials, secret: o.secret }) : phone.client;
  const headers: Record<string, string> = {
    ...(raw !== "" ? { "content-type": "application/json" } : {}),
    ...signer.signHeaders(method, url, raw, o.timestamp ?? t.clock.now()),
  };
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === null) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  return t.send(new Request(url, { method, headers, body: raw === "" ? undefined : raw }), o.ip);
}

/** POST /device/v1/events with Idempotency-Key = event_id unless overridden. */
export function postEvent(t: TestApp, phone: Phone, event: unknown, o: SignedOptions = {}): Promise<TestResponse> {
  const id = (event as { event_id?: unknown })?.event_id;
  return signedRequest(t, phone, "POST", "/device/v1/events", {
    body: event,
    ...o,
    headers: { ...(typeof id === "string" ? { "idempotency-key": id } : {}), ...(o.headers ?? {}) },
  });
}
