/**
 * @module http/intake-language
 * Which language the intake page speaks (docs/intake.md "Languages"): the message catalogs
 * shipped in `web/intake/i18n/`, and the choice among them for one request — the respondent's own
 * choice (cookie `earshot_lang`, set by the page's language switcher), else the link's
 * `settings.language`, else the best of the respondent's `Accept-Language`, else English. A tag
 * matches a catalog exactly or by its primary language (`de-AT` → `de`, `pt-BR` → `pt`).
 */
import ar from "../../web/intake/i18n/ar.json";
import de from "../../web/intake/i18n/de.json";
import en from "../../web/intake/i18n/en.json";
import es from "../../web/intake/i18n/es.json";
import fr from "../../web/intake/i18n/fr.json";
import it from "../../web/intake/i18n/it.json";
import nl from "../../web/intake/i18n/nl.json";
import pl from "../../web/intake/i18n/pl.json";
import pt from "../../web/intake/i18n/pt.json";

/** A message catalog: key → text, or plural forms by CLDR category. */
export type Catalog = Record<string, string | Record<string, string>>;
export type MessageKey = keyof typeof en;

/** Every shipped catalog by language tag; English first (the fallback). */
export const CATALOGS: Readonly<Record<string, Catalog>> = { en, de, fr, es, it, nl, pt, pl, ar };

/** Tags of the shipped catalogs, in the switcher's order. */
export const SHIPPED_LANGUAGES: readonly string[] = Object.keys(CATALOGS);

const RTL = new Set(["ar", "he", "fa", "ur"]);

/** The shipped catalog a BCP 47 tag resolves to (exact, then primary language), or null. */
export function shippedLanguageOf(tag: string | null | undefined): string | null {
  if (!tag) return null;
  const lower = tag.trim().toLowerCase();
  if (lower in CATALOGS) return lower;
  const primary = lower.split(/[-_]/)[0]!;
  return primary in CATALOGS ? primary : null;
}

/**
 * Languages of an `Accept-Language` header, best first (by `q`, then order); `*` and `q=0` are
 * left out. Malformed parts are skipped.
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((l) => l.tag !== "" && l.tag !== "*" && Number.isFinite(l.q) && l.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((l) => l.tag);
}

/** The `earshot_lang` cookie's value, if any. */
function chosenLanguage(cookieHeader: string | null | undefined): string | null {
  const match = /(?:^|;\s*)earshot_lang=([A-Za-z0-9-]{2,35})/.exec(cookieHeader ?? "");
  return match?.[1] ?? null;
}

/**
 * The catalog the page uses for a request.
 * @param linkLanguage the link's `settings.language` (null for none, or an unknown link)
 */
export function negotiateLanguage(headers: Headers, linkLanguage: string | null | undefined): string {
  const chosen = shippedLanguageOf(chosenLanguage(headers.get("cookie")));
  if (chosen) return chosen;
  const ofLink = shippedLanguageOf(linkLanguage);
  if (ofLink) return ofLink;
  for (const tag of acceptedLanguages(headers.get("accept-language"))) {
    const shipped = shippedLanguageOf(tag);
    if (shipped) return shipped;
  }
  return "en";
}

/**
 * The language of the operator's texts when it differs from the page's: a link may carry
 * translations (`translations`, docs/api.md) in a language Earshot has no catalog for (Swedish,
 * say). The page's words then stay in its catalog language, but the prompts, options and the
 * thank-you text are shown in the translation the respondent asked for — the link's
 * `settings.language`, else the best of `Accept-Language` the link is translated into. Null when
 * the page's own language has a translation, when the respondent chose a language on the page
 * (cookie), or when nothing matches.
 * @param translated the language tags the link or any of its questions has translations for
 */
export function contentLanguageOf(
  headers: Headers,
  linkLanguage: string | null | undefined,
  translated: readonly string[],
  pageLanguage: string,
): string | null {
  if (translated.length === 0 || chosenLanguage(headers.get("cookie"))) return null;
  const primary = (tag: string) => tag.toLowerCase().split(/[-_]/)[0]!;
  const match = (tag: string) => translated.find((k) => k.toLowerCase() === tag.toLowerCase()) ?? translated.find((k) => primary(k) === primary(tag));
  if (match(pageLanguage)) return null;
  for (const tag of [linkLanguage, ...acceptedLanguages(headers.get("accept-language"))]) {
    const found = tag ? match(tag) : undefined;
    if (found) return found;
  }
  return null;
}

/** A plain (non-plural) message of a shipped catalog, English when the language has none. */
export function pageText(lang: string, key: MessageKey): string {
  const text = CATALOGS[lang]?.[key] ?? en[key];
  return typeof text === "string" ? text : key;
}

/** `rtl` for right-to-left languages. */
export function directionOf(lang: string): "rtl" | "ltr" {
  return RTL.has(lang.split("-")[0]!) ? "rtl" : "ltr";
}
