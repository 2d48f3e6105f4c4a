// Pure parts of the console (contract §18): amounts typed and shown, the language chosen, the two
// catalogues, escaping, where a form may send the browser back to.
import { describe, expect, test } from "bun:test";
import { safeBack } from "../src/console/pages/charge";
import { escapeHtml, html } from "../src/console/html";
import { pickLang, translator } from "../src/i18n";
import { en } from "../src/i18n/en";
import { es } from "../src/i18n/es";
import { ago, parseSoles, soles, startOfLocalDay } from "../src/i18n/format";

describe("amounts", () => {
  test.each([
    ["25", 2500],
    ["25.5", 2550],
    ["25.50", 2550],
    ["25,50", 2550],
    [" S/ 25.05 ", 2505],
    ["1,250.00", 125000],
    ["1,250", 125000],
    ["0.01", 1],
    ["1000000", 100_000_000],
  ])("%p is %p cents", (typed, cents) => expect(parseSoles(typed)).toBe(cents));

  test.each(["", "0", "0.00", "-5", "25.555", "abc", "1000000.01", "25.5.5", "1,25,0", "2 5"])("%p is refused", (typed) => expect(parseSoles(typed)).toBeNull());

  test("shown as S/ 1,250.00 in either language", () => {
    expect(soles(125000)).toBe("S/ 1,250.00");
    expect(soles(1)).toBe("S/ 0.01");
    expect(soles(100_000_000)).toBe("S/ 1,000,000.00");
  });
});

describe("language", () => {
  test("the person's choice first, else English only when the browser prefers it to Spanish", () => {
    expect(pickLang("en", "es-PE")).toBe("en");
    expect(pickLang("es", "en-US")).toBe("es");
    expect(pickLang(undefined, null)).toBe("es");
    expect(pickLang(undefined, "en-US,en;q=0.9")).toBe("en");
    expect(pickLang(undefined, "es-PE,es;q=0.9,en;q=0.8")).toBe("es");
    expect(pickLang(undefined, "en;q=0.5,es;q=0.8")).toBe("es");
    expect(pickLang(undefined, "fr-FR,en;q=0.5")).toBe("en");
    expect(pickLang("de", "fr")).toBe("es");
  });

  test("both catalogues have the same keys and, for each, the same {values}", () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(es).sort());
    const values = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(es) as (keyof typeof es)[]) expect([key, values(en[key])]).toEqual([key, values(es[key])]);
  });

  test("values are filled in; a missing one stays visible rather than vanishing", () => {
    expect(translator("es")("charge.order", { id: "A-1" })).toBe("Pedido A-1");
    expect(translator("en")("charge.order", { id: "A-1" })).toBe("Order A-1");
    expect(translator("es")("charge.order")).toBe("Pedido {id}");
  });

  test("how long ago, in words", () => {
    const t = translator("es");
    const now = Date.UTC(2026, 10, 23, 12);
    expect(ago(null, now, t)).toBe("nunca");
    expect(ago(now - 30_000, now, t)).toBe("ahora");
    expect(ago(now - 4 * 60_000, now, t)).toBe("hace 4 min");
    expect(ago(now - 3 * 3600_000, now, t)).toBe("hace 3 h");
    expect(ago(now - 3 * 86_400_000, now, t)).toBe("hace 3 d");
  });

  test("today starts at midnight in the box's time zone", () => {
    const now = Date.UTC(2026, 10, 23, 3, 30); // 22:30 on the 22nd in Lima (UTC-5), when TZ says so
    const start = startOfLocalDay(now);
    const d = new Date(start);
    expect([d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()]).toEqual([0, 0, 0, 0]);
    expect(now - start).toBeLessThan(86_400_000);
    expect(now - start).toBeGreaterThanOrEqual(0);
  });
});

describe("markup", () => {
  test("every value is escaped unless it is already markup", () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p>${name}</p>`.text).toBe(`<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>`);
    expect(html`<p title="${name}">${html`<b>ok</b>`}${[1, "<", null, false, undefined]}</p>`.text).toBe(
      `<p title="${escapeHtml(name)}"><b>ok</b>1&lt;</p>`,
    );
  });

  test("a form sends the browser back only to a console page", () => {
    expect(safeBack("/console/cobrar?x=1")).toBe("/console/cobrar?x=1");
    expect(safeBack("https://evil.example/")).toBe("/console/");
    expect(safeBack("//evil.example/console/")).toBe("/console/");
    expect(safeBack("/console/\\evil")).toBe("/console/");
    expect(safeBack(null)).toBe("/console/");
  });
});
