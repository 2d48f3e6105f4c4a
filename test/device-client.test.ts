// src/client/device-client.ts against a scripted server: signing, clock offset, retries.
import { describe, expect, test } from "bun:test";
import { DeviceApiError, DeviceClient, type ClientOptions, type Credentials } from "../src/client/device-client";
import { signRequest } from "../src/device/signing";

const creds = { deviceId: "dev_x", secret: "s3cret", apiBaseUrl: "https://box.local:8443/device/v1" };

function scripted(answers: (Response | Error)[], more: Partial<ClientOptions> & { credentials?: Credentials } = {}) {
  const seen: Request[] = [];
  const sleeps: number[] = [];
  let phoneClock = 1_000_000;
  const client = new DeviceClient(more.credentials ?? { ...creds }, {
    ...more,
    fetch: async (r) => {
      seen.push(r.clone());
      const next = answers.shift();
      if (!next) throw new Error("no more scripted answers");
      if (next instanceof Error) throw next;
      return next;
    },
    now: () => phoneClock,
    sleep: async (ms) => {
      sleeps.push(ms);
      phoneClock += ms;
    },
    maxRetries: 3,
  });
  return { client, seen, sleeps };
}

const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: `urn:cuadra:error:${code}`, title: code, status, code, request_id: "req_1", ...extra }), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });

const receipt = { event_id: "e1", status: "accepted", received_at: 1, match: { status: "unmatched", order_id: null } };
const event = { event_id: "e1", kind: "payment.received" as const, occurred_at: 1, source: "yape", amount: 100, currency: "PEN" as const };

describe("DeviceClient", () => {
  test("signs the exact bytes it sends, with Idempotency-Key", async () => {
    const { client, seen } = scripted([Response.json(receipt, { status: 201 })]);
    const res = await client.sendEvent(event);
    expect(res.status).toBe(201);
    const req = seen[0]!;
    const body = await req.text();
    expect(req.url).toBe("https://box.local:8443/device/v1/events");
    expect(req.headers.get("idempotency-key")).toBe("e1");
    expect(req.headers.get("x-signature-alg")).toBe("HMAC-SHA256");
    expect(req.headers.get("x-timestamp")).toBe("1000000");
    expect(req.headers.get("x-signature")).toBe(signRequest("s3cret", "1000000", "POST", "/device/v1/events", body));
  });

  test("409 and 429 are retried after Retry-After; a 400 is not", async () => {
    const { client, sleeps } = scripted([
      problem(409, "idempotency_key_in_use", {}, { "retry-after": "1" }),
      problem(429, "rate_limited", {}, { "retry-after": "3" }),
      Response.json(receipt, { status: 201, headers: { "idempotent-replayed": "true" } }),
    ]);
    const res = await client.sendEvent(event);
    expect(res.status).toBe(201);
    expect(res.attempts).toBe(3);
    expect(sleeps).toEqual([1000, 3000]);

    const bad = scripted([problem(400, "invalid_request")]);
    const r = await bad.client.sendEvent(event);
    expect([r.status, r.attempts, bad.sleeps.length]).toEqual([400, 1, 0]);
  });

  test("network errors are retried with backoff, then given up", async () => {
    const { client, sleeps } = scripted([new TypeError("connection refused"), Response.json(receipt, { status: 201 })]);
    expect((await client.sendEvent(event)).status).toBe(201);
    expect(sleeps).toEqual([250]);
    const down = scripted([new TypeError("x"), new TypeError("x"), new TypeError("x"), new TypeError("x")]);
    await expect(down.client.sendEvent(event)).rejects.toThrow("x");
    expect(down.sleeps).toEqual([250, 500, 1000]);
  });

  test("401 timestamp_out_of_window: takes the offset from server_time and signs again once", async () => {
    const serverTime = 1_000_000 + 360_000; // the phone is six minutes slow
    const { client, seen } = scripted([problem(401, "timestamp_out_of_window", { server_time: serverTime }), Response.json({}, { status: 200 })]);
    const res = await client.heartbeat({ battery_level: 50 });
    expect(res.status).toBe(200);
    expect(client.clockOffsetMs).toBe(360_000);
    expect(seen[1]!.headers.get("x-timestamp")).toBe(String(serverTime));
    // A second refusal is returned, not looped on.
    const twice = scripted([problem(401, "timestamp_out_of_window", { server_time: 5 }), problem(401, "timestamp_out_of_window", { server_time: 5 })]);
    expect((await twice.client.heartbeat()).status).toBe(401);
  });

  test("activate: 201 gives a client with the secret and the clock offset; anything else throws", async () => {
    const activation = {
      device_id: "dev_new",
      secret: "abc",
      tenant_name: "Shop",
      environment: "live",
      api_base_url: "https://box.local:8443/device/v1",
      license: { status: "active", reason: null, plan: "standard", max_devices: 5, devices_in_use: 1, expires_at: null },
      server_time: 5_000,
      config: { heartbeat_interval_ms: 60000, max_clock_skew_ms: 300000, max_event_bytes: 65536 },
    };
    const { client } = await DeviceClient.activate(
      "https://box.local:8443/",
      { activation_code: "x", device_label: "l", app_version: "1", platform: "ios", os_version: "17" },
      { fetch: async () => Response.json(activation, { status: 201 }), now: () => 1_000 },
    );
    expect(client.credentials).toEqual({ deviceId: "dev_new", secret: "abc", apiBaseUrl: "https://box.local:8443/device/v1", tlsFingerprint: null });
    expect(client.clockOffsetMs).toBe(4_000);
    await expect(
      DeviceClient.activate("https://box.local:8443", { activation_code: "x", device_label: "l", app_version: "1", platform: "ios", os_version: "17" }, {
        fetch: async () => problem(410, "activation_code_used"),
      }),
    ).rejects.toBeInstanceOf(DeviceApiError);
  });

  test("syncClock measures the offset from GET /time", async () => {
    const { client } = scripted([Response.json({ server_time: 1_000_000 - 90_000 })]);
    expect(await client.syncClock()).toBe(-90_000);
    expect(client.serverNow()).toBe(1_000_000 - 90_000);
  });
});

// The app keeps what it could not deliver (contract §17's issue: never dropped), and finds its box again.
describe("DeviceClient: what it could not deliver", () => {
  const ok = () => Response.json(receipt, { status: 201 });
  const heartbeatOk = () => Response.json({ server_time: 1, license: { status: "active" } }, { status: 200 });
  const suspended = () => problem(403, "license_suspended", { license: { status: "suspended", reason: "suspended" } });
  const ev = (id: string) => ({ ...event, event_id: id });
  const sentIds = async (seen: Request[]) =>
    Promise.all(seen.filter((r) => r.url.endsWith("/events")).map(async (r) => JSON.parse(await r.text()).event_id));

  test("a network error keeps the event queued; the next accepted heartbeat sends it", async () => {
    const down = [new TypeError("x"), new TypeError("x"), new TypeError("x"), new TypeError("x")];
    const { client, seen } = scripted([...down, heartbeatOk(), ok()]);
    await expect(client.sendEvent(ev("e1"))).rejects.toThrow("x");
    expect(client.queue.map((e) => e.event_id)).toEqual(["e1"]);
    expect((await client.heartbeat()).status).toBe(200);
    expect(client.queue).toEqual([]);
    expect(await sentIds(seen)).toEqual(["e1", "e1", "e1", "e1", "e1"]);
  });

  test("403 license_suspended keeps it; a refused heartbeat sends nothing; an accepted one sends it", async () => {
    const { client, seen } = scripted([suspended(), suspended(), heartbeatOk(), ok()]);
    expect((await client.sendEvent(ev("e1"))).status).toBe(403);
    expect(client.queue).toHaveLength(1);
    expect((await client.heartbeat()).status).toBe(403);
    expect(client.queue).toHaveLength(1);
    expect(seen).toHaveLength(2);
    await client.heartbeat();
    expect(client.queue).toEqual([]);
    expect(await sentIds(seen)).toEqual(["e1", "e1"]);
  });

  test("flush sends oldest first, stops at the first the box cannot take, and drops only what it refuses for good", async () => {
    const { client, seen } = scripted([problem(422, "event_id_reused"), ok(), suspended()], { queue: [ev("a"), ev("b"), ev("c"), ev("d")] });
    const report = await client.flush();
    expect(report).toEqual({
      delivered: 1,
      rejected: [{ event: ev("a"), status: 422, code: "event_id_reused" }],
      remaining: 2,
      blocked: "license_suspended",
    });
    expect(client.queue.map((e) => e.event_id)).toEqual(["c", "d"]);
    expect(await sentIds(seen)).toEqual(["a", "b", "c"]);
  });

  test("an event already queued is queued once", async () => {
    const { client } = scripted([suspended(), suspended()]);
    await client.sendEvent(ev("e1"));
    await client.sendEvent(ev("e1"));
    expect(client.queue).toHaveLength(1);
  });

  test("a pinned client that cannot reach its box browses for it once, moves there and sends", async () => {
    const fp = "ab".repeat(32);
    const asked: string[] = [];
    const seen: string[] = [];
    const client = new DeviceClient(
      { ...creds, tlsFingerprint: fp },
      {
        fetch: async (r) => {
          seen.push(r.url);
          if (r.url.startsWith("https://box.local:8443/")) throw new TypeError("connection refused");
          return ok();
        },
        discover: async (pin) => (asked.push(pin), "https://192.168.1.31:9443"),
        sleep: async () => {},
      },
    );
    expect((await client.sendEvent(ev("e1"))).status).toBe(201);
    expect(asked).toEqual([fp]);
    expect(seen).toEqual(["https://box.local:8443/device/v1/events", "https://192.168.1.31:9443/device/v1/events"]);
    expect(client.credentials.apiBaseUrl).toBe("https://192.168.1.31:9443/device/v1");
    expect(client.queue).toEqual([]);
  });

  test("when browsing finds nothing new, it retries where it was, and keeps the event", async () => {
    const fp = "ab".repeat(32);
    let browsed = 0;
    const { client, sleeps } = scripted([new TypeError("x"), new TypeError("x"), new TypeError("x"), new TypeError("x")], {
      credentials: { ...creds, tlsFingerprint: fp },
      discover: async () => (browsed++, "https://box.local:8443"),
    });
    await expect(client.sendEvent(ev("e1"))).rejects.toThrow("x");
    expect(browsed).toBe(1);
    expect(sleeps).toEqual([250, 500, 1000]);
    expect(client.credentials.apiBaseUrl).toBe(creds.apiBaseUrl);
    expect(client.queue).toHaveLength(1);
  });
});
