// contract §17, the pure parts: pairing URIs, fingerprints, the base URL rule, the announced name
// and TXT records, and QR codes that a decoder we did not write reads back.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { announce, instanceName, txtRecord } from "../src/pairing/announce";
import { baseUrl, isPrivateIPv4 } from "../src/pairing/base-url";
import { QUIET_ZONE, qrForTerminal, qrModules, writeQrPng } from "../src/pairing/qr";
import {
  fingerprintForPeople,
  fingerprintOfDer,
  normaliseFingerprint,
  pairingUri,
  parsePairingUri,
  PairingUriError,
} from "../src/pairing/uri";
import { decodePng, decodeTerminalQr, terminalModules } from "./support/qr";

const FP = "bd5d8d31c0a2f7e94b1d6c3a8e5f2b7d9c4e1a6f3b8d2c7e5a9f1b4d6c8e2a09";
const URI = `cuadra://pair?url=https%3A%2F%2F192.168.1.20%3A8443&code=WDJB-MJHT-KXQP&fp=${FP}`;

describe("pairing URI", () => {
  test("is written as §17 shows: url percent-encoded, the code, fp last", () => {
    expect(pairingUri({ url: "https://192.168.1.20:8443", code: "WDJB-MJHT-KXQP", fp: FP })).toBe(URI);
  });

  test("leaves fp out without TLS", () => {
    expect(pairingUri({ url: "http://192.168.1.20:8443", code: "WDJB-MJHT-KXQP", fp: null })).toBe(
      "cuadra://pair?url=http%3A%2F%2F192.168.1.20%3A8443&code=WDJB-MJHT-KXQP",
    );
  });

  test("parses back to what was written", () => {
    expect(parsePairingUri(URI)).toEqual({ url: "https://192.168.1.20:8443", code: "WDJB-MJHT-KXQP", fp: FP });
    expect(parsePairingUri(`cuadra://pair?url=${encodeURIComponent("https://caja.example.pe/")}&code=WDJB-MJHT-KXQP&fp=${FP.toUpperCase()}`)).toEqual({
      url: "https://caja.example.pe",
      code: "WDJB-MJHT-KXQP",
      fp: FP,
    });
  });

  test.each([
    ["https://192.168.1.20:8443", "not a cuadra://pair URI"],
    ["cuadra://unpair?url=x", "not a cuadra://pair URI"],
    ["cuadra://pair?code=WDJB-MJHT-KXQP", "no url"],
    ["cuadra://pair?url=192.168.1.20&code=WDJB-MJHT-KXQP", "url is not an absolute URL"],
    ["cuadra://pair?url=ftp%3A%2F%2Fbox&code=WDJB-MJHT-KXQP", "url is not http(s)"],
    ["cuadra://pair?url=http%3A%2F%2Fbox", "no code"],
    [`cuadra://pair?url=https%3A%2F%2Fbox&code=WDJB-MJHT-KXQP&fp=${FP.slice(2)}`, "fp is not a SHA-256 fingerprint"],
    ["cuadra://pair?url=https%3A%2F%2Fbox&code=WDJB-MJHT-KXQP", "an https box must come with its fp"],
  ])("refuses %s: %s", (text, reason) => {
    expect(() => parsePairingUri(text)).toThrow(new PairingUriError(reason));
  });
});

describe("fingerprints", () => {
  test("SHA-256 of the DER bytes, 64 lower-case hex digits", () => {
    expect(fingerprintOfDer(new TextEncoder().encode("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("the colon form people compare by eye converts both ways", () => {
    const people = fingerprintForPeople(FP);
    expect(people).toStartWith("BD:5D:8D:31:");
    expect(people.split(":")).toHaveLength(32);
    expect(normaliseFingerprint(people)).toBe(FP);
    expect(normaliseFingerprint("BD 5D")).toBeNull();
  });
});

describe("base URL (§17)", () => {
  test("--public-url wins, without its trailing slash", () => {
    expect(baseUrl({ publicUrl: "https://caja.example.pe/", scheme: "https", port: 8443, addresses: ["192.168.1.20"] })).toBe("https://caja.example.pe");
  });

  test("else the first private IPv4 address, with the port", () => {
    expect(baseUrl({ scheme: "https", port: 9000, addresses: ["203.0.113.5", "172.20.0.3", "192.168.1.20"] })).toBe("https://172.20.0.3:9000");
    expect(baseUrl({ scheme: "http", port: 8443, addresses: ["10.0.0.7"] })).toBe("http://10.0.0.7:8443");
  });

  test("with no private address, the first other one; with none, localhost", () => {
    expect(baseUrl({ scheme: "https", port: 8443, addresses: ["203.0.113.5"] })).toBe("https://203.0.113.5:8443");
    expect(baseUrl({ scheme: "https", port: 8443, addresses: [] })).toBe("https://localhost:8443");
  });

  test.each([
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["172.32.0.1", false],
    ["172.15.0.1", false],
    ["192.168.0.1", true],
    ["192.169.0.1", false],
    ["100.64.0.1", false],
    ["fd00::2", false],
  ])("%s private: %p", (address, expected) => {
    expect(isPrivateIPv4(address)).toBe(expected);
  });
});

describe("announcement", () => {
  test("instance `Cuadra <shop name>`, cut to one DNS label (63 bytes) without splitting a letter", () => {
    expect(instanceName("Bodega Rosa")).toBe("Cuadra Bodega Rosa");
    expect(instanceName(null)).toBe("Cuadra");
    expect(instanceName("  Doña   Peña \n")).toBe("Cuadra Doña Peña");
    const long = instanceName("ñ".repeat(40));
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(63);
    expect(long).toBe(`Cuadra ${"ñ".repeat(28)}`);
  });

  test("a failure to announce is reported once and stops nothing; stop() still returns", async () => {
    const failures: string[] = [];
    const onFailure = (e: Error) => failures.push(e.message);
    // No interface can multicast: the responder cannot even be made.
    const none = announce({ shopName: "Bodega", port: 8443, fp: FP, onFailure }, () => {
      throw new Error("no multicast interface");
    }, 0);
    await Bun.sleep(10);
    await none.stop();
    expect(failures).toEqual(["no multicast interface"]);

    // Advertising fails later: reported, and stop() still withdraws what was made.
    failures.length = 0;
    let shutdowns = 0;
    const responder = {
      createService: (options: { name: string; type: string; port: number; txt: Record<string, string> }) => {
        expect(options).toEqual({ name: "Cuadra Bodega", type: "cuadra", port: 8443, txt: { v: "1", path: "/device/v1", fp: FP } });
        return { advertise: () => Promise.reject(new Error("send EHOSTUNREACH")) };
      },
      shutdown: async () => void shutdowns++,
    };
    const failing = announce({ shopName: "Bodega", port: 8443, fp: FP, onFailure }, () => responder as never, 0);
    await Bun.sleep(10);
    await failing.stop();
    expect(failures).toEqual(["send EHOSTUNREACH"]);
    expect(shutdowns).toBe(1);
  });

  test("a stop before the announcement began (a start stopped at once) makes no responder and returns", async () => {
    let made = 0;
    const early = announce({ shopName: "Bodega", port: 8443, fp: FP, onFailure: () => {} }, () => (made++, {} as never), 50);
    await early.stop();
    await Bun.sleep(80);
    expect(made).toBe(0);
  });

  test("TXT v=1, path=/device/v1 and fp only with TLS", () => {
    expect(txtRecord(FP)).toEqual({ v: "1", path: "/device/v1", fp: FP });
    expect(txtRecord(null)).toEqual({ v: "1", path: "/device/v1" });
  });
});

describe("QR codes", () => {
  test("the terminal drawing decodes back to the pairing URI, dark on light without inverting", () => {
    expect(decodeTerminalQr(qrForTerminal(URI))).toBe(URI);
  });

  test("every module of the drawing sets both of its colours, so a light or dark theme cannot invert it", () => {
    const drawing = qrForTerminal(URI);
    for (const line of drawing.split("\n")) {
      expect(line).toMatch(/^(\x1b\[(30|97);(40|107)m▀)+\x1b\[0m$/);
    }
  });

  test("the quiet zone is drawn: light modules all around", () => {
    const modules = terminalModules(qrForTerminal(URI));
    const size = qrModules(URI).length;
    expect(modules[0]).toHaveLength(size);
    expect(QUIET_ZONE).toBe(4); // ISO/IEC 18004: four modules
    for (let i = 0; i < QUIET_ZONE; i++) {
      expect(modules[i]!.every((m) => !m)).toBe(true);
      expect(modules.every((row) => !row[i] && !row[size - 1 - i])).toBe(true);
    }
    // ...and the code itself starts right inside it (a finder pattern's dark corner).
    expect(modules[QUIET_ZONE]![QUIET_ZONE]).toBe(true);
  });

  test("a pairing URI fits an 80-column terminal", () => {
    const longest = pairingUri({ url: "https://192.168.100.200:65535", code: "WDJB-MJHT-KXQP", fp: FP });
    expect(qrModules(longest).length).toBeLessThanOrEqual(80);
  });

  test("--qr-png writes a PNG that decodes to the URI, readable by its owner only", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cuadra-qr-")), "pair.png");
    await writeQrPng(URI, file);
    expect(decodePng(file)).toBe(URI);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
