// contract §17: `serve` announces itself with DNS-SD over multicast DNS (RFC 6762/6763), so a phone
// whose box changed address finds it again by browsing `_cuadra._tcp` and keeping the instance whose
// `fp` equals its pin.
//
// The protocol is @homebridge/ciao's (HomeKit's responder for Homebridge: probing, conflict renaming,
// announcements on every interface, re-announcing when an address changes, goodbyes): a shop's router
// giving the box a new address is exactly the case this exists for.
import type { Responder } from "@homebridge/ciao";

export const SERVICE_TYPE = "cuadra"; // `_cuadra._tcp`
export const DEVICE_PATH = "/device/v1";
const GOODBYE_WAIT_MS = 1_500;
// DNS labels are at most 63 bytes (RFC 6763 §4.1.1); the instance name is one label.
const MAX_LABEL_BYTES = 63;

export interface AnnounceInput {
  shopName: string | null;
  port: number;
  /** Certificate fingerprint (contract §17 form); left out of TXT without TLS. */
  fp: string | null;
  /** Called once if the announcement cannot be made; the server goes on without it. */
  onFailure(error: Error): void;
}

export interface Announcement {
  /** Withdraws the announcement (goodbye packets, TTL 0) and closes the sockets. Bounded in time. */
  stop(): Promise<void>;
}

/** `Cuadra <shop name>`, cut to one DNS label without splitting a character. */
export function instanceName(shopName: string | null): string {
  let name = shopName ? `Cuadra ${shopName.replace(/\s+/g, " ").trim()}` : "Cuadra";
  while (new TextEncoder().encode(name).length > MAX_LABEL_BYTES) name = Array.from(name).slice(0, -1).join("");
  return name.trim();
}

export function txtRecord(fp: string | null): Record<string, string> {
  return { v: "1", path: DEVICE_PATH, ...(fp ? { fp } : {}) };
}

// Loaded a moment after the server listens: loading it takes ~12 ms of the only thread, which the
// first requests of a start (a phone retrying, a health check) should not wait behind, and a start
// with --no-mdns never loads it. Against ~1 s of probing, the delay is not noticed.
const LOAD_AFTER_MS = 200;
const ciaoResponder = async (): Promise<Responder> => (await import("@homebridge/ciao")).default.getResponder();

/** Starts announcing in the background (probing takes about a second) and returns at once. */
export function announce(
  { shopName, port, fp, onFailure }: AnnounceInput,
  responderFactory: () => Responder | Promise<Responder> = ciaoResponder,
  loadAfterMs = LOAD_AFTER_MS,
): Announcement {
  // Either making the service fails or advertising rejects, never both: one report.
  const fail = (e: unknown) => onFailure(e instanceof Error ? e : new Error(String(e)));
  let stopping = false;
  const started = (async () => {
    await Bun.sleep(loadAfterMs);
    if (stopping) return null; // stopped before it began: nothing to withdraw
    const responder = await responderFactory();
    try {
      const service = responder.createService({ name: instanceName(shopName), type: SERVICE_TYPE, port, txt: txtRecord(fp) });
      service.advertise().catch(fail);
    } catch (e) {
      fail(e);
    }
    return responder;
  })().catch((e) => {
    fail(e);
    return null;
  });
  return {
    async stop() {
      stopping = true;
      const goodbye = started.then((responder) => responder?.shutdown()).catch(() => {});
      await Promise.race([goodbye, Bun.sleep(GOODBYE_WAIT_MS)]);
    },
  };
}
