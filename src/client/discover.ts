// contract §17: a phone whose box does not answer browses `_cuadra._tcp` on the local network and
// keeps the instance whose `fp` equals its pin. The instance name is only a label: two shops may
// share a name, a fingerprint they cannot share.
import { Bonjour, type Service } from "bonjour-service";

export const BROWSE_TIMEOUT_MS = 3_000;

/** The base URL (e.g. https://192.168.1.31:8443) of the box announcing `fp`, or null if none answers in time. */
export function discoverBox(fp: string, timeoutMs = BROWSE_TIMEOUT_MS): Promise<string | null> {
  return new Promise((resolve) => {
    const bonjour = new Bonjour();
    let done = false;
    const finish = (url: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      browser.stop();
      bonjour.destroy();
      resolve(url);
    };
    const browser = bonjour.find({ type: "cuadra", protocol: "tcp" }, (service: Service) => {
      const url = boxUrl(service, fp);
      if (url) finish(url);
    });
    const timer = setTimeout(() => finish(null), timeoutMs);
  });
}

/**
 * The instance's base URL if its TXT `fp` is the pin. The address the announcement came from comes
 * first (it is the box's address on the phone's own network), then its IPv4 addresses.
 */
export function boxUrl(service: Pick<Service, "txt" | "port" | "addresses" | "referer">, fp: string): string | null {
  const txt = (service.txt ?? {}) as Record<string, unknown>;
  if (String(txt.fp ?? "").toLowerCase() !== fp || txt.v !== "1") return null;
  const addresses = service.addresses ?? [];
  const from = service.referer?.address;
  const address = (from && !from.includes(":") ? from : undefined) ?? addresses.find((a) => !a.includes(":")) ?? addresses[0];
  if (!address) return null;
  return `https://${address.includes(":") ? `[${address}]` : address}:${service.port}`;
}
