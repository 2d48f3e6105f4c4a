// contract §17: what the announcement costs a box. The time from start until a multicast DNS
// query for `_cuadra._tcp.local` (asked by multicast-dns, not by the announcing code) is answered
// with this box's instance: probing alone takes RFC 6762's ~750 ms. Run alone with
// `bun bench/pairing.ts` (needs dist/cuadra).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import makeMdns from "multicast-dns";
import { freePort } from "../test/support/e2e";

/** Start of the process to the first answer naming the instance, per run; NaN if none came in 10 s. */
export async function announceTimes(binary: string, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await announceOnce(binary));
  return times;
}

async function announceOnce(binary: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "cuadra-bench-mdns-"));
  const name = `Bench ${crypto.randomUUID().slice(0, 8)}`;
  const init = Bun.spawnSync([binary, "init", "--name", name, "--json", "--data-dir", dir]);
  if (init.exitCode !== 0) throw new Error(`init failed: ${init.stderr}`);
  const mdns = makeMdns({ loopback: true });
  const port = await freePort();
  const t0 = performance.now();
  const server = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--no-init", "--data-dir", dir], {
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    const instance = `Cuadra ${name}._cuadra._tcp.local`;
    let ask: ReturnType<typeof setInterval> | undefined;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    try {
      return await new Promise<number>((res) => {
        mdns.on("response", (p: any) => {
          if (p.answers.some((a: any) => a.type === "PTR" && a.data === instance && a.ttl > 0)) res(performance.now() - t0);
        });
        ask = setInterval(() => mdns.query({ questions: [{ name: "_cuadra._tcp.local", type: "PTR" }] }), 50);
        timeout = setTimeout(() => res(NaN), 10_000);
      });
    } finally {
      clearInterval(ask);
      clearTimeout(timeout);
      mdns.destroy();
    }
  } finally {
    server.kill("SIGTERM");
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const times = await announceTimes(resolve(import.meta.dir, "..", "dist", "cuadra"), Number(process.env.BENCH_STARTS ?? 5));
  console.log(`start to the first mDNS answer: ${times.map((t) => t.toFixed(0)).join(", ")} ms`);
}
