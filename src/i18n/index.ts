// One catalogue per language (contract §18: Spanish (Peru) first, English available), shared by
// everything a merchant reads. `translator(lang)` gives t(key, values) with `{name}` filled in.
import { en } from "./en";
import { es, type MessageKey } from "./es";

export type Lang = "es" | "en";
export type { MessageKey };
export const LANGS: readonly Lang[] = ["es", "en"];

const CATALOGUES: Record<Lang, Record<MessageKey, string>> = { es, en };

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  const catalogue = CATALOGUES[lang];
  return (key, values) => {
    const text = catalogue[key];
    return values ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : text;
  };
}

/**
 * The person's choice (a cookie) first; else English only when the browser prefers it to Spanish
 * (Accept-Language, in its order of preference); else Spanish.
 */
export function pickLang(choice: string | null | undefined, acceptLanguage: string | null): Lang {
  if (choice === "es" || choice === "en") return choice;
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { base: tag!.split("-")[0]!, q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((x) => x.base === "es" || x.base === "en")
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked[0]?.base === "en" ? "en" : "es";
}
