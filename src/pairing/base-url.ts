// contract §17: the base URL put in a pairing URI. `--public-url` if set, else the box's first
// private IPv4 address on the LAN with its port. Pure: the addresses are passed in.
import { networkInterfaces } from "node:os";

/** RFC 1918 ranges: the addresses a shop's router hands out. */
export function isPrivateIPv4(address: string): boolean {
  const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(address);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** The box's IPv4 addresses other than loopback, in the order the system lists its interfaces. */
export function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === "IPv4")
    .map((a) => a!.address);
}

export interface BaseUrlInput {
  publicUrl?: string;
  scheme: "http" | "https";
  port: number;
  /** The box's non-loopback IPv4 addresses (lanAddresses()). */
  addresses: string[];
}

/**
 * The rule of §17. A box with no private address (a test machine, a public cloud host) gets its
 * first other IPv4 address, and one with none at all `localhost`: a URI that only works on the
 * box itself is still better than none, and `--public-url` is the cure the CLI suggests.
 */
export function baseUrl({ publicUrl, scheme, port, addresses }: BaseUrlInput): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, "");
  const host = addresses.find(isPrivateIPv4) ?? addresses[0] ?? "localhost";
  return `${scheme}://${host}:${port}`;
}
