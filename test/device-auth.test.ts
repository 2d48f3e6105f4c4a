// contract §5: the signature check of every signed device request, each answer in its order.
import { afterAll, describe, expect, test } from "bun:test";
import { revokeDevice } from "../src/device/service";
import { setLicense } from "../src/tenants/service";
import { activatePhone, paymentEvent, postEvent, signedRequest } from "./support/device";
import { makeTestApp, type TestResponse } from "./support/harness";

const t = await makeTestApp();
afterAll(() => t.close());

let ipCounter = 0;
const freshIp = () => `172.16.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

function expect401(res: TestResponse, code: string) {
  expect(res.status).toBe(401);
  expect(res.body.code).toBe(code);
  expect(res.headers.get("www-authenticate")).toBe("HMAC-SHA256");
  expect(res.headers.get("content-type")).toBe("application/problem+json");
}

const heartbeat = (phone: Awaited<ReturnType<typeof activatePhone>>, o: Parameters<typeof signedRequest>[4] = {}) =>
  signedRequest(t, phone, "POST", "/device/v1/heartbeat", { body: { battery_level: 80 }, ip: freshIp(), ...o });

describe("401 missing_auth_headers / unsupported_signature_alg", () => {
  test.each(["x-device-id", "x-timestamp", "x-signature-alg", "x-signature"])("without %s", async (header) => {
    const phone = await activatePhone(t);
    expect401(await heartbeat(phone, { headers: { [header]: null } }), "missing_auth_headers");
  });

  test("an unsigned request", async () => {
    const res = await t.request("POST", "/device/v1/heartbeat", { body: {}, ip: freshIp() });
    expect401(res, "missing_auth_headers");
  });

  test("algorithm other than HMAC-SHA256", async () => {
    const phone = await activatePhone(t);
    expect401(await heartbeat(phone, { headers: { "x-signature-alg": "HMAC-SHA1" } }), "unsupported_signature_alg");
    // exactly HMAC-SHA256: no other spelling
    for (const alg of ["hmac-sha256", "Hmac-Sha256", "HMAC_SHA256", "HMACSHA256", "HMAC-SHA256,HMAC-SHA1", "HMAC-SHA256X"]) {
      expect401(await heartbeat(phone, { headers: { "x-signature-alg": alg } }), "unsupported_signature_alg");
    }
    // A missing header is reported before a wrong algorithm.
    expect401(await heartbeat(phone, { headers: { "x-signature-alg": "HMAC-SHA1", "x-signature": null } }), "missing_auth_headers");
  });
});

describe("401 timestamp_out_of_window", () => {
  test("a clock four minutes off either way is accepted; six minutes off is not, with server_time", async () => {
    const phone = await activatePhone(t);
    const now = t.clock.now();
    expect((await heartbeat(phone, { timestamp: now - 240_000 })).status).toBe(200);
    expect((await heartbeat(phone, { timestamp: now + 240_000 })).status).toBe(200);
    expect((await heartbeat(phone, { timestamp: now - 300_000 })).status).toBe(200);
    for (const ts of [now - 360_000, now + 360_000, now + 300_001]) {
      const res = await heartbeat(phone, { timestamp: ts });
      expect401(res, "timestamp_out_of_window");
      expect(res.body.server_time).toBe(now);
    }
  });

  test.each(["abc", "1.5e12", "1795262400000.0", "-1795262400000", " ", "17952624000001234567"])("X-Timestamp %p is not an integer in the window", async (ts) => {
    const phone = await activatePhone(t);
    const res = await heartbeat(phone, { headers: { "x-timestamp": ts } });
    expect401(res, ts === " " ? "missing_auth_headers" : "timestamp_out_of_window");
  });

  test("checked before the device: an unknown device with a bad clock hears about the clock", async () => {
    const phone = await activatePhone(t);
    const res = await heartbeat(phone, { timestamp: t.clock.now() - 400_000, headers: { "x-device-id": "dev_unknown" } });
    expect401(res, "timestamp_out_of_window");
  });
});

describe("401 unknown_device / invalid_signature", () => {
  test("unknown device", async () => {
    const phone = await activatePhone(t);
    expect401(await heartbeat(phone, { headers: { "x-device-id": "dev_doesnotexist0000000" } }), "unknown_device");
  });

  test("wrong secret, changed body byte, other path, other timestamp than signed", async () => {
    const phone = await activatePhone(t);
    expect401(await heartbeat(phone, { secret: "not-the-secret" }), "invalid_signature");

    const event = paymentEvent(t);
    const raw = JSON.stringify(event);
    const signedFor = phone.client.signHeaders("POST", "http://localhost/device/v1/events", raw, t.clock.now());
    const send = (body: string, headers: Record<string, string> = {}, path = "/device/v1/events") =>
      t.send(
        new Request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": event.event_id, ...signedFor, ...headers },
          body,
        }),
        freshIp(),
      );
    expect401(await send(raw.replace('"amount":2500', '"amount":2501')), "invalid_signature");
    expect401(await send(raw + " "), "invalid_signature");
    expect401(await send(raw, {}, "/device/v1/heartbeat"), "invalid_signature");
    expect401(await send(raw, { "x-timestamp": String(t.clock.now() - 1) }), "invalid_signature");
    // The exact bytes as signed pass, with the signature in upper case too.
    const ok = await send(raw, { "x-signature": signedFor["x-signature"]!.toUpperCase() });
    expect(ok.status).toBe(201);
  });

  test("the query string is part of the signed path", async () => {
    const phone = await activatePhone(t);
    const signed = await signedRequest(t, phone, "POST", "/device/v1/heartbeat", { target: "/device/v1/heartbeat?v=2", body: {} });
    expect(signed.status).toBe(200);
    const url = "http://localhost/device/v1/heartbeat?v=2";
    const headers = { "content-type": "application/json", ...phone.client.signHeaders("POST", "http://localhost/device/v1/heartbeat", "{}", t.clock.now()) };
    expect401(await t.send(new Request(url, { method: "POST", headers, body: "{}" }), freshIp()), "invalid_signature");
  });

  test("a body signed as JSON but re-serialised differently fails: the signature is over raw bytes", async () => {
    const phone = await activatePhone(t);
    const signedBody = '{"battery_level": 80}';
    const headers = { "content-type": "application/json", ...phone.client.signHeaders("POST", "http://localhost/device/v1/heartbeat", signedBody, t.clock.now()) };
    const sent = JSON.stringify(JSON.parse(signedBody));
    expect401(await t.send(new Request("http://localhost/device/v1/heartbeat", { method: "POST", headers, body: sent }), freshIp()), "invalid_signature");
    expect((await t.send(new Request("http://localhost/device/v1/heartbeat", { method: "POST", headers, body: signedBody }), freshIp())).status).toBe(200);
  });
});

describe("403", () => {
  test("revoked device → 403 device_revoked, at once", async () => {
    const phone = await activatePhone(t);
    expect((await heartbeat(phone)).status).toBe(200);
    revokeDevice(t.store.db, t.clock, phone.deviceId);
    const res = await heartbeat(phone);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("device_revoked");
    const ev = await postEvent(t, phone, paymentEvent(t));
    expect(ev.body.code).toBe("device_revoked");
    // A revoked device with a bad signature is still a 401: the signature is checked first.
    expect401(await heartbeat(phone, { secret: "x" }), "invalid_signature");
  });

  test("license suspended or expired → 403 license_suspended with the license; reactivation works at once", async () => {
    const phone = await activatePhone(t);
    setLicense(t.store.db, t.clock, phone.tenantId, { status: "suspended" });
    const res = await heartbeat(phone);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("license_suspended");
    expect(res.body.license).toMatchObject({ status: "suspended", reason: "suspended", devices_in_use: 1 });
    setLicense(t.store.db, t.clock, phone.tenantId, { status: "active", expiresAt: t.clock.now() - 1 });
    const expired = await heartbeat(phone);
    expect(expired.body.code).toBe("license_suspended");
    expect(expired.body.license.reason).toBe("expired");
    setLicense(t.store.db, t.clock, phone.tenantId, { expiresAt: null });
    expect((await heartbeat(phone)).status).toBe(200);
  });

  test("revoked is reported before a suspended license", async () => {
    const phone = await activatePhone(t);
    setLicense(t.store.db, t.clock, phone.tenantId, { status: "suspended" });
    revokeDevice(t.store.db, t.clock, phone.deviceId);
    expect((await heartbeat(phone)).body.code).toBe("device_revoked");
  });
});

describe("429", () => {
  test("per-device bucket: 30 requests, then 429 with Retry-After and RateLimit headers; 3 per second come back", async () => {
    const phone = await activatePhone(t);
    const ip = freshIp();
    for (let i = 0; i < 30; i++) {
      const res = await heartbeat(phone, { ip });
      expect(res.status).toBe(200);
      if (i === 0) expect(res.headers.get("ratelimit")).toBe('"device";r=29;t=1');
    }
    const limited = await heartbeat(phone, { ip });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.headers.get("ratelimit-policy")).toBe('"device";q=30;w=10');
    // Another phone of the same shop has its own bucket.
    const other = await activatePhone(t, { tenantId: phone.tenantId });
    expect((await heartbeat(other, { ip })).status).toBe(200);
    t.clock.advance(1000);
    for (let i = 0; i < 3; i++) expect((await heartbeat(phone, { ip })).status).toBe(200);
    expect((await heartbeat(phone, { ip })).status).toBe(429);
  });

  test("failed authentication: 60 per address, then 429; it never spends a device's allowance", async () => {
    const phone = await activatePhone(t);
    const ip = freshIp();
    for (let i = 0; i < 60; i++) expect401(await heartbeat(phone, { ip, secret: "wrong" }), "invalid_signature");
    const limited = await heartbeat(phone, { ip, secret: "wrong" });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("ratelimit-policy")).toBe('"auth_failure";q=60;w=60');
    // Other addresses still hear 401; the device itself, correctly signed, is not limited at all.
    expect401(await heartbeat(phone, { ip: freshIp(), secret: "wrong" }), "invalid_signature");
    const ok = await heartbeat(phone, { ip });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit")).toBe('"device";r=29;t=1');
  });
});

describe("after authentication", () => {
  test("415 for a body that is not JSON, 413 for a chunked body over 64 KiB", async () => {
    const phone = await activatePhone(t);
    const res = await signedRequest(t, phone, "POST", "/device/v1/heartbeat", { raw: "battery=80", headers: { "content-type": "text/plain" }, ip: freshIp() });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe("unsupported_media_type");

    const big = new TextEncoder().encode(JSON.stringify({ pad: "x".repeat(70_000) }));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < big.length; i += 8192) c.enqueue(big.slice(i, i + 8192));
        c.close();
      },
    });
    const headers = { "content-type": "application/json", ...phone.client.signHeaders("POST", "http://localhost/device/v1/heartbeat", big, t.clock.now()) };
    const tooBig = await t.send(new Request("http://localhost/device/v1/heartbeat", { method: "POST", headers, body: stream }), freshIp());
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: "payload_too_large", max_bytes: 65536 });
  });

  test("malformed JSON, correctly signed → 400 malformed_json", async () => {
    const phone = await activatePhone(t);
    const res = await signedRequest(t, phone, "POST", "/device/v1/heartbeat", { raw: "{oops", ip: freshIp() });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("malformed_json");
  });

  test("logs name the device but never carry the signature or secret", async () => {
    const phone = await activatePhone(t);
    const res = await heartbeat(phone);
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === res.headers.get("x-request-id"));
    expect(line).toMatchObject({ path: "/device/v1/heartbeat", status: 200, device_id: phone.deviceId, tenant_id: phone.tenantId, environment: "live" });
    expect(t.logs.join("\n")).not.toContain(phone.secret);
  });
});
