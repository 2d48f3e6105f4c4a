// serve's activity lines (issue 15) over the built binary: with --activity on, a payment makes a line
// for people appear in stdout, in the box's language and time zone, beside the JSON request lines;
// by default (auto) a stdout that is not a terminal gets only the JSON lines.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cli, startServer, tempDirsRemovedAfterAll, until, type RunningServer } from "./support/e2e";

const temp = tempDirsRemovedAfterAll();
// Building the binary and starting it take seconds, more under load (Bun's default is 5 s).
setDefaultTimeout(60_000);

const running: RunningServer[] = [];
afterAll(async () => {
  for (const s of running) await s.stop();
});

async function shopWithServer(args: string[], env: Record<string, string> = {}) {
  const dataDir = temp.dataDir();
  const made = await cli(dataDir, ["tenant", "create", "--name", "Bodega Rosa", "--json"]);
  expect(made.code).toBe(0);
  const server = await startServer({ dataDir, args, env });
  running.push(server);
  const testPayment = async (body: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/connector/v1/test/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${made.json.keys.test}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "payment.received", currency: "PEN", source: "plin", ...body }),
    });
    expect(res.status).toBe(201);
  };
  return { server, testPayment };
}

const requestLine = (out: string, path: string) =>
  out.split("\n").find((l) => {
    try {
      const j = JSON.parse(l);
      return j.msg === "request" && j.path === path && j.status === 201;
    } catch {
      return false;
    }
  });

test("--activity on: a test payment appears as a line for people, in Spanish and Lima's time, beside the JSON lines", async () => {
  const { server, testPayment } = await shopWithServer(["--activity", "on"], { LANG: "es_PE.UTF-8", TZ: "America/Lima" });
  const occurredAt = Date.now();
  await testPayment({ occurred_at: occurredAt, amount: 1501, payer_name: "Test P*" });
  const hhmm = new Intl.DateTimeFormat("es-PE", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "America/Lima" }).format(occurredAt);
  const line = await until("the payment's line", () =>
    server.output().split("\n").find((l) => l.includes("Pago S/ 15.01")),
    5_000,
  );
  expect(line).toBe(`${hhmm}  [prueba] Pago S/ 15.01 de Test P* (Plin) → sin pedido (espera a que lo asignes)`);
  expect(requestLine(server.output(), "/connector/v1/test/payments")).toBeDefined(); // the journal's lines are still there
  expect(server.output().match(/Pago S\/ 15\.01/g)).toHaveLength(1);
});

test("by default, to a stdout that is not a terminal, only the JSON lines; a wrong --activity is a usage error", async () => {
  const { server, testPayment } = await shopWithServer([]);
  await testPayment({ occurred_at: Date.now(), amount: 1502 });
  await until("the request's JSON line", () => requestLine(server.output(), "/connector/v1/test/payments"), 5_000);
  await Bun.sleep(1_500); // more than a tick of the reporter, were it running
  expect(server.output()).not.toContain("S/ 15.02");

  const nowhere = join(temp.dataDir(), "new");
  const wrong = await cli(nowhere, ["serve", "--activity", "sometimes"]);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain("--activity");
  expect(existsSync(nowhere)).toBe(false); // refused before anything was made
});
