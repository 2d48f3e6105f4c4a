// Pure pieces of the command line (issue 15): "did you mean", the locale's language, times and
// lengths of time as a merchant reads and types them.
import { describe, expect, test } from "bun:test";
import { closestWord, editDistance } from "../src/cli/did-you-mean";
import { cliLang } from "../src/cli/framework";
import { translator } from "../src/i18n";
import { duration, isoLocal, localTime, parseDuration, parseInstant, timeZone } from "../src/i18n/format";

describe("did you mean", () => {
  test("edit distance counts a swap of neighbours as one edit", () => {
    expect(editDistance("prot", "port")).toBe(1);
    expect(editDistance("devices", "device")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });

  test("closest word: within a third of its length, or by a word boundary; else none", () => {
    const options = ["port", "host", "tls", "tls-cert", "tls-key", "ttl", "expires-at", "data-dir", "json"];
    expect(closestWord("prot", options)).toBe("port");
    expect(closestWord("PORT", options)).toBe("port");
    expect(closestWord("ttl-seconds", options)).toBe("ttl");
    expect(closestWord("expires", options)).toBe("expires-at");
    expect(closestWord("datadir", options)).toBe("data-dir");
    expect(closestWord("tls-crt", options)).toBe("tls-cert");
    expect(closestWord("colour", options)).toBeNull();
    expect(closestWord("x", options)).toBeNull();
    expect(closestWord("tl", ["tls", "ttl"])).toBe("tls"); // ties: the first known word
    expect(closestWord("", options)).toBeNull();
  });
});

describe("language", () => {
  test("Spanish when LC_ALL, LC_MESSAGES or LANG (in that order) is Spanish; else English", () => {
    expect(cliLang({ LANG: "es_PE.UTF-8" })).toBe("es");
    expect(cliLang({ LANG: "es" })).toBe("es");
    expect(cliLang({ LANG: "es_ES@euro" })).toBe("es");
    expect(cliLang({ LANG: "en_US.UTF-8" })).toBe("en");
    expect(cliLang({ LANG: "C.UTF-8" })).toBe("en");
    expect(cliLang({})).toBe("en");
    expect(cliLang({ LANG: "estonian" })).toBe("en");
    expect(cliLang({ LANG: "en_US.UTF-8", LC_ALL: "es_PE.UTF-8" })).toBe("es");
    expect(cliLang({ LANG: "es_PE.UTF-8", LC_MESSAGES: "en_GB.UTF-8" })).toBe("en");
  });
});

describe("times and lengths of time", () => {
  const en = translator("en");
  const es = translator("es");

  test("durations in words, at most two units", () => {
    expect(duration(0, en)).toBe("0 s");
    expect(duration(45, en)).toBe("45 s");
    expect(duration(900, en)).toBe("15 min");
    expect(duration(5400, en)).toBe("1 h 30 min");
    expect(duration(86_400, en)).toBe("1 day");
    expect(duration(259_200, en)).toBe("3 days");
    expect(duration(259_200, es)).toBe("3 días");
    expect(duration(90_000, es)).toBe("1 día 1 h");
    expect(duration(86_460, en)).toBe("1 day"); // minutes are not worth saying beside days
  });

  test("typed lengths of time: seconds, or a number with s, m, min, h, d", () => {
    expect(parseDuration("900")).toBe(900);
    expect(parseDuration("15m")).toBe(900);
    expect(parseDuration("15 min")).toBe(900);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("3D")).toBe(259_200);
    for (const bad of ["", "1.5h", "-5", "5w", "m", "a week"]) expect(parseDuration(bad)).toBeNull();
  });

  // The test runner's zone is whatever the machine's is; these use the process's zone as the box would.
  test("a typed moment: epoch ms, a date (midnight, box time), ISO 8601 with or without offset", () => {
    expect(parseInstant("1798761600000")).toBe(1_798_761_600_000);
    expect(parseInstant("2027-01-01")).toBe(new Date(2027, 0, 1).getTime());
    expect(parseInstant("2027-01-01T18:30")).toBe(new Date(2027, 0, 1, 18, 30).getTime());
    expect(parseInstant("2027-01-01T00:00:00-05:00")).toBe(Date.UTC(2027, 0, 1, 5));
    expect(parseInstant("2027-01-01T05:00:00Z")).toBe(Date.UTC(2027, 0, 1, 5));
    expect(parseInstant("2027-01-01T05:00:00.250+0000")).toBe(Date.UTC(2027, 0, 1, 5, 0, 0, 250));
    expect(parseInstant("0")).toBe(0); // contract §1: MS, whatever it is
    expect(parseInstant("1700000000")).toBe(1_700_000_000);
    for (const bad of ["2027", "20270101", "tomorrow", "2027-02-30", "2027-13-01", "2027-01-01T24:00", "01/01/2027", "", "99999999999999999999"]) {
      expect([bad, parseInstant(bad)]).toEqual([bad, null]);
    }
  });

  test("ISO 8601 with the box's offset, and a time a person reads with its zone named", () => {
    const ms = Date.UTC(2026, 10, 22, 13, 31, 41);
    const iso = isoLocal(ms);
    expect(new Date(iso).getTime()).toBe(ms); // the same instant, whatever the zone
    expect(iso).toMatch(/^2026-11-2\dT\d\d:31:41(Z|[+-]\d\d:\d\d)$/);
    const text = localTime(ms, "en", en);
    expect(text).toContain(`(${timeZone()}, ${iso})`);
  });
});
