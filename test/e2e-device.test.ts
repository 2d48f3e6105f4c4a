// End-to-end over the built binary: a phone activates, signs events and heartbeats (also from a
// shell script with openssl and curl), is revoked and suspended from the CLI while sending, races
// itself, and the box is killed with SIGKILL mid-stream without losing an acknowledged event.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DeviceClient, type PaymentEventBody } from "../src/client/device-client";
import { cli, phoneEvent, ROOT, startServer, tempDirsRemovedAfterAll, type RunningServer } from "./support/e2e";

const temp = tempDirsRemovedAfterAll();

let server: RunningServer;
let tenantId: string;

async function newCode(s: RunningServer = server, tenant = tenantId, env: "live" | "test" = "live"): Promise<string> {
  const r = await cli(s.dataDir, ["code", "create", "--tenant", tenant, "--env", env, "--json"]);
  expect(r.code).toBe(0);
  return r.json.code;
}

async function newTenant(s: RunningServer): Promise<string> {
  const r = await cli(s.dataDir, ["tenant", "create", "--name", "Bodega Rosa", "--json"]);
  expect(r.code).toBe(0);
  // These tests link many phones to one shop; the default plan allows 5.
  expect((await cli(s.dataDir, ["license", "set", "--tenant", r.json.tenant_id, "--max-devices", "100", "--json"])).code).toBe(0);
  return r.json.tenant_id;
}

const phone = { device_label: "Caja 1", app_version: "1.4.0", platform: "android" as const, os_version: "14" };

async function activate(s: RunningServer = server, tenant = tenantId, opts: ConstructorParameters<typeof DeviceClient>[1] = {}) {
  const code = await newCode(s, tenant);
  return DeviceClient.activate(s.url, { activation_code: code, ...phone }, opts);
}

const event = (over: Partial<PaymentEventBody> = {}): PaymentEventBody => phoneEvent({ payer_name: "Yanina Man*", security_code: "482", ...over });

beforeAll(async () => {
  server = await startServer({ dataDir: temp.dataDir() });
  tenantId = await newTenant(server);
});

afterAll(async () => {
  await server?.stop();
});

describe("a phone's life", () => {
  test("activates with a lower-case code with spaces, sends events and heartbeats", async () => {
    const code = await newCode();
    const typed = code.toLowerCase().replace(/-/g, " ");
    const { client, activation } = await DeviceClient.activate(server.url, { activation_code: typed, ...phone });
    expect(activation.api_base_url).toBe(`${server.url}/device/v1`);
    expect(activation.environment).toBe("live");

    const ev = event({ amount: 1999 });
    const first = await client.sendEvent(ev);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ event_id: ev.event_id, status: "accepted", match: { status: "unmatched", order_id: null } });
    const again = await client.sendEvent(ev);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);

    const hb = await client.heartbeat({ battery_level: 64, listener_connected: true, queue_depth: 0 });
    expect(hb.status).toBe(200);
    expect(hb.body).toMatchObject({ device: { device_id: activation.device_id, status: "active" }, license: { status: "active" } });

    const list = await cli(server.dataDir, ["device", "list", "--tenant", tenantId, "--json"]);
    const row = list.json.find((d: { device_id: string }) => d.device_id === activation.device_id);
    expect(row).toMatchObject({ label: "Caja 1", platform: "android", environment: "live", status: "active" });
    expect(row.last_seen_at).toBeGreaterThan(Date.now() - 60_000);

    // Repeating the activation: no second device, no second secret.
    const repeat = await fetch(`${server.url}/device/v1/activation`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ activation_code: code, ...phone }),
    });
    expect(repeat.status).toBe(410);
    expect(await repeat.text()).not.toContain(activation.secret);
  });

  const hasShellTools = ["openssl", "curl", "sha256sum"].every((b) => Bun.which(b) !== null);

  test.if(hasShellTools)("the README's openssl + curl script sends a signed event that the box accepts", async () => {
    const { activation } = await activate();
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const script = readme.split("<!-- sign-event.sh -->")[1]!.split("```sh\n")[1]!.split("```")[0]!;
    const run = async () => {
      const proc = Bun.spawn(["sh", "-c", script], {
        env: { ...process.env, BASE: server.url, DEVICE_ID: activation.device_id, SECRET: activation.secret },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect(err).toBe("");
      expect(code).toBe(0);
      return JSON.parse(out);
    };
    const answer = await run();
    expect(answer).toMatchObject({ status: "accepted", match: { status: "unmatched", order_id: null } });
    expect(answer.event_id).toMatch(/^[0-9a-f]{32}$/);
  });

  test("a clock four minutes off is accepted; six minutes off is refused, and the client corrects itself from server_time", async () => {
    const { activation } = await activate();
    const creds = { deviceId: activation.device_id, secret: activation.secret, apiBaseUrl: activation.api_base_url };
    const slow4 = new DeviceClient(creds, { now: () => Date.now() - 4 * 60_000 });
    const r4 = await slow4.heartbeat({});
    expect([r4.status, r4.attempts]).toEqual([200, 1]);

    const fast6 = new DeviceClient(creds, { now: () => Date.now() + 6 * 60_000 });
    const raw = await fetch(`${activation.api_base_url}/heartbeat`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fast6.signHeaders("POST", `${activation.api_base_url}/heartbeat`, "{}") },
      body: "{}",
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toBe("HMAC-SHA256");
    const problem = await raw.json();
    expect(problem.code).toBe("timestamp_out_of_window");
    expect(Math.abs(problem.server_time - Date.now())).toBeLessThan(5_000);

    const r6 = await fast6.heartbeat({});
    expect([r6.status, r6.attempts]).toEqual([200, 2]);
    expect(Math.abs(fast6.clockOffsetMs + 6 * 60_000)).toBeLessThan(2_000);
    // GET /device/v1/time does the same without a failed request.
    const other = new DeviceClient(creds, { now: () => Date.now() + 6 * 60_000 });
    await other.syncClock();
    expect((await other.heartbeat({})).attempts).toBe(1);
  });

  test("two phones of one shop report the same payment: the second is a duplicate", async () => {
    const a = (await activate()).client;
    const b = (await activate()).client;
    const seen = event({ amount: 3130, payer_name: "Rosa Q*" });
    expect((await a.sendEvent(seen)).body).toMatchObject({ match: { status: "unmatched" } });
    const dup = await b.sendEvent({ ...seen, event_id: crypto.randomUUID(), occurred_at: seen.occurred_at + 900 });
    expect(dup.status).toBe(201);
    expect(dup.body).toMatchObject({ match: { status: "duplicate", order_id: null } });
  });
});

describe("the command line takes effect within 1 s while the phone sends", () => {
  /** Sends heartbeats back to back until one answers `status`; resolves with when that happened. */
  async function sendUntil(client: DeviceClient, status: number, deadline: number): Promise<number> {
    for (;;) {
      const r = await client.heartbeat({});
      if (r.status === status) return Date.now();
      expect(r.status).toBe(200);
      if (Date.now() > deadline) throw new Error(`no ${status} before the deadline`);
      await Bun.sleep(20);
    }
  }

  test("device revoke → 403 device_revoked", async () => {
    const { client, activation } = await activate(server, tenantId, { maxRetries: 0 });
    const watching = sendUntil(client, 403, Date.now() + 10_000);
    await Bun.sleep(150);
    const r = await cli(server.dataDir, ["device", "revoke", activation.device_id, "--json"]);
    const revokedAt = Date.now();
    expect(r.json).toEqual({ device_id: activation.device_id, status: "revoked" });
    expect((await watching) - revokedAt).toBeLessThan(1000);
    const after = await client.sendEvent(event());
    expect((after.body as { code: string }).code).toBe("device_revoked");
  });

  test("license set --status suspended → 403 license_suspended; active again → 200", async () => {
    const tenant = await newTenant(server);
    const { client } = await activate(server, tenant, { maxRetries: 0 });
    const watching = sendUntil(client, 403, Date.now() + 10_000);
    await Bun.sleep(150);
    const r = await cli(server.dataDir, ["license", "set", "--tenant", tenant, "--status", "suspended", "--json"]);
    const suspendedAt = Date.now();
    expect(r.json.status).toBe("suspended");
    expect((await watching) - suspendedAt).toBeLessThan(1000);
    const refused = await client.sendEvent(event());
    expect(refused.body).toMatchObject({ code: "license_suspended", license: { status: "suspended", reason: "suspended" } });
    await cli(server.dataDir, ["license", "set", "--tenant", tenant, "--status", "active", "--json"]);
    expect((await client.heartbeat({})).status).toBe(200);
  });
});

test("the server's log lines never carry a secret, a signature or an activation code", async () => {
  const code = await newCode();
  const { client, activation } = await DeviceClient.activate(server.url, { activation_code: code, ...phone });
  const sent = await client.sendEvent(event({ amount: 777 }));
  expect(sent.status).toBe(201);
  await Bun.sleep(100);
  const out = server.output();
  expect(out).toContain(activation.device_id);
  expect(out).not.toContain(activation.secret);
  expect(out).not.toContain(code);
  expect(out).not.toContain(code.replace(/-/g, ""));
  expect(out).not.toMatch(/[0-9a-f]{64}/);
});

describe("races and crashes (own server)", () => {
  let box: RunningServer;
  let tenant: string;
  /** Linked before the activation race, which spends this address's failed attempts. */
  let racer: Awaited<ReturnType<typeof activate>>;
  let survivor: Awaited<ReturnType<typeof activate>>;

  // Larger buckets (×20) so that the crash test can keep a real stream going.
  const boxArgs = ["--rate-limit-scale", "20"];

  beforeAll(async () => {
    box = await startServer({ dataDir: temp.dataDir(), args: boxArgs });
    tenant = await newTenant(box);
    racer = await activate(box, tenant, { maxRetries: 0 });
    survivor = await activate(box, tenant, { maxRetries: 0 });
  });

  afterAll(async () => {
    await box?.stop("SIGKILL");
  });

  test("twenty identical activations at once: exactly one device", async () => {
    const code = await newCode(box, tenant);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${box.url}/device/v1/activation`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ activation_code: code, ...phone }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    // The others: used (or, once this address spent its 10 failed attempts, rate limited).
    for (const r of results.filter((x) => x.status !== 201)) expect(["activation_code_used", "rate_limited"]).toContain(r.body.code);
    const winner = results.find((r) => r.status === 201)!.body.device_id;
    const list = await cli(box.dataDir, ["device", "list", "--tenant", tenant, "--json"]);
    expect(list.json.map((d: { device_id: string }) => d.device_id).sort()).toEqual(
      [racer.activation.device_id, survivor.activation.device_id, winner].sort(),
    );
  });

  test("twenty copies of one event at once: one stored; the rest in use (409) or the replay", async () => {
    const { client } = racer;
    const ev = event();
    const results = await Promise.all(Array.from({ length: 20 }, () => client.sendEvent(ev)));
    const firsts = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    expect(firsts).toHaveLength(1);
    for (const r of results.filter((x) => x !== firsts[0])) {
      if (r.status === 409) {
        expect((r.body as { code: string }).code).toBe("idempotency_key_in_use");
        expect(r.headers.get("retry-after")).toBe("1");
      } else {
        expect(r.status).toBe(201);
        expect(r.headers.get("idempotent-replayed")).toBe("true");
        expect(r.body).toEqual(firsts[0]!.body);
      }
    }
    const replay = await client.sendEvent(ev);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  test("SIGKILL mid-stream: every acknowledged event is there after a restart", async () => {
    const { client, activation } = survivor;
    const acknowledged: PaymentEventBody[] = [];
    let killed = false;
    const sender = async () => {
      while (!killed) {
        const ev = event({ amount: 100 + acknowledged.length });
        try {
          const r = await client.sendEvent(ev);
          if (r.status === 201) acknowledged.push(ev);
          else if (r.status === 429) await Bun.sleep(50);
          else throw new Error(`unexpected ${r.status}`);
        } catch (e) {
          if (!killed) throw e;
        }
      }
    };
    const senders = Array.from({ length: 6 }, sender);
    while (acknowledged.length < 300) await Bun.sleep(2);
    killed = true;
    expect(await box.stop("SIGKILL")).not.toBe(0);
    await Promise.allSettled(senders);
    const count = acknowledged.length;
    expect(count).toBeGreaterThanOrEqual(300);

    box = await startServer({ dataDir: box.dataDir, args: boxArgs });
    const again = new DeviceClient({ deviceId: activation.device_id, secret: activation.secret, apiBaseUrl: `${box.url}/device/v1` }, { maxRetries: 8 });
    for (const ev of acknowledged) {
      const r = await again.sendEvent(ev);
      expect(r.status).toBe(201);
      expect(r.headers.get("idempotent-replayed")).toBe("true");
    }
  });
});
