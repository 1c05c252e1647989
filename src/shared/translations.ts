/**
 * @module shared/translations
 * Picking an operator's translation for a language (issue 17, docs/api.md "Translations"): the
 * entry of `translations` for the exact BCP 47 tag, else the first with the same primary language
 * (a `de-AT` translation on a `de` page). Pure and neutral: the intake page (web/intake/content.ts,
 * which adds the page's content-language fallback) and the server (the page's title and
 * description, intake/routes.ts) share it.
 */

/**
 * The entry of `translations` for `lang`: exact tag, else the first key with the same primary
 * language (case-insensitive); undefined when none (or no `translations`).
 */
export function translationIn<T>(translations: Record<string, T> | undefined, lang: string): T | undefined {
  if (!translations) return undefined;
  if (translations[lang]) return translations[lang];
  const primary = lang.split("-")[0]!.toLowerCase();
  const key = Object.keys(translations).find((k) => k.split("-")[0]!.toLowerCase() === primary);
  return key === undefined ? undefined : translations[key];
}

/** One text (`key`) of the translation for `lang`; undefined when untranslated or empty. */
export function translatedText<K extends string>(
  translations: Record<string, Partial<Record<K, string>>> | undefined,
  lang: string,
  key: K,
): string | undefined {
  return translationIn(translations, lang)?.[key] || undefined;
}
