/**
 * @module web/intake/i18n.test
 * The message catalogs of the intake page (docs/intake.md "Languages"): every shipped catalog
 * has exactly the English catalog's keys, the same placeholders, and every plural form its
 * language needs (`Intl.PluralRules`); every key is used by the page or the server's pages, and
 * every key the source uses exists. Also the formatting helpers and the server's choice of language.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { acceptedLanguages, CATALOGS, negotiateLanguage, SHIPPED_LANGUAGES } from "../../src/http/intake-language.ts";
import { clock, formatDuration, setLanguage, t, type Catalog } from "./i18n.ts";

const ROOT = path.join(import.meta.dir, "..", "..");
const en = CATALOGS.en as Catalog;

function placeholders(entry: Catalog[string]): string[] {
  const texts = typeof entry === "string" ? [entry] : Object.values(entry);
  return [...new Set(texts.flatMap((text) => [...(text ?? "").matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)))].sort();
}

/** Source files that show catalog messages: the page's modules and the server's page rendering. */
function sourceFiles(): string[] {
  const web = path.join(ROOT, "web", "intake");
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) return walk(file);
      return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [file] : [];
    });
  return [...walk(web), path.join(ROOT, "src", "modules", "intake", "routes.ts"), path.join(ROOT, "src", "http", "web-assets.ts")];
}

describe("intake message catalogs", () => {
  test("nine catalogs ship: en, de, fr, es, it, nl, pt, pl, ar", () => {
    expect([...SHIPPED_LANGUAGES].sort()).toEqual(["ar", "de", "en", "es", "fr", "it", "nl", "pl", "pt"]);
  });

  for (const lang of SHIPPED_LANGUAGES) {
    test(`${lang}: the same keys and placeholders as English, every plural form of the language`, () => {
      const catalog = CATALOGS[lang] as Catalog;
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort());
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      for (const [key, entry] of Object.entries(catalog)) {
        expect([key, placeholders(entry)]).toEqual([key, placeholders(en[key]!)]);
        expect([key, typeof entry]).toEqual([key, typeof en[key]]);
        if (typeof entry === "object") {
          for (const category of categories) expect([key, category, typeof entry[category]]).toEqual([key, category, "string"]);
        } else {
          expect([key, entry.trim() !== ""]).toEqual([key, true]);
        }
      }
    });
  }

  test("no unused key, and every key the source uses exists", () => {
    const source = sourceFiles()
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    const unused = Object.keys(en).filter((key) => !source.includes(`"${key}"`));
    expect(unused).toEqual([]);
    const used = [...source.matchAll(/\b(?:t|pageText)\((?:lang, )?"([\w.]+)"/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(50);
    expect(used.filter((key) => !(key in en))).toEqual([]);
  });

  test("plurals and numbers follow the language", () => {
    setLanguage("pl", CATALOGS.pl as Catalog);
    expect([1, 2, 5, 22].map((count) => t("rating.stars", { count }))).toEqual(["1 gwiazdka", "2 gwiazdki", "5 gwiazdek", "22 gwiazdki"]);
    setLanguage("ar", CATALOGS.ar as Catalog);
    expect(t("rating.stars", { count: 2 })).toBe("نجمتان");
    setLanguage("de", CATALOGS.de as Catalog);
    expect(formatDuration(90)).toBe("1,5 Minuten");
    expect(t("error.numberRange", { min: 1000, max: 2500.5 })).toBe("Bitte geben Sie eine Zahl von 1.000 bis 2.500,5 ein.");
    setLanguage("en", en);
    expect([formatDuration(45), formatDuration(60), clock(75)]).toEqual(["45 seconds", "1 minute", "1:15"]);
  });

  test("the server picks the respondent's choice, then the link's language, then Accept-Language, else English", () => {
    const headers = (h: Record<string, string>) => new Headers(h);
    expect(acceptedLanguages("fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5, de;q=0")).toEqual(["fr-CH", "fr", "en"]);
    expect(negotiateLanguage(headers({ "accept-language": "sv, pt-BR;q=0.8, en;q=0.5" }), null)).toBe("pt");
    expect(negotiateLanguage(headers({ "accept-language": "sv, ja" }), null)).toBe("en");
    expect(negotiateLanguage(headers({ "accept-language": "fr" }), "de-AT")).toBe("de");
    expect(negotiateLanguage(headers({ "accept-language": "fr" }), "sv")).toBe("fr");
    expect(negotiateLanguage(headers({ "accept-language": "fr", cookie: "a=1; earshot_lang=ar" }), "de")).toBe("ar");
    expect(negotiateLanguage(headers({ cookie: "earshot_lang=xx" }), null)).toBe("en");
  });
});
