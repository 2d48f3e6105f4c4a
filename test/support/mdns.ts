// A multicast DNS peer for tests, built on multicast-dns: a library the box does not announce with
// (it uses @homebridge/ciao), so what it reads is what the network carries.
import makeMdns from "multicast-dns";

export interface MdnsRecord {
  name: string;
  type: string;
  ttl: number;
  data: unknown;
}

export interface MdnsPeer {
  /** Every record of every response heard so far, answers and additionals alike. */
  records: MdnsRecord[];
  query(name: string, type: "PTR" | "SRV" | "TXT" | "A"): void;
  close(): void;
}

export function mdnsPeer(): MdnsPeer {
  const mdns = makeMdns({ loopback: true });
  const records: MdnsRecord[] = [];
  mdns.on("response", (packet: any) => {
    for (const r of [...(packet.answers ?? []), ...(packet.additionals ?? [])]) {
      records.push({ name: r.name, type: r.type, ttl: r.ttl, data: r.data });
    }
  });
  return {
    records,
    query: (name, type) => mdns.query({ questions: [{ name, type }] }),
    close: () => mdns.destroy(),
  };
}

/** TXT data (an array of `key=value` buffers) as an object. */
export function txtOf(data: unknown): Record<string, string> {
  const entries = (data as Buffer[]).map((b) => b.toString()).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]);
  return Object.fromEntries(entries);
}

/**
 * Whether this machine carries multicast to itself: one peer queries a made-up name, another must
 * hear the query. Where it cannot (no multicast route, a sandbox without it), mDNS tests skip and say so.
 */
export async function multicastWorks(timeoutMs = 2_000): Promise<boolean> {
  const listener = makeMdns({ loopback: true });
  const sender = makeMdns({ loopback: true });
  const name = `probe-${crypto.randomUUID()}.local`;
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      listener.on("query", (q: any) => {
        if (q.questions?.some((x: any) => x.name === name)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      const ask = () => sender.query({ questions: [{ name, type: "A" }] });
      listener.on("ready", ask);
      setTimeout(ask, 300);
    });
  } finally {
    listener.destroy();
    sender.destroy();
  }
}
