/**
 * @module web/intake/content
 * The operator's texts in the page's language (issue 17, docs/api.md "Translations"): a link or
 * question may carry `translations` per BCP 47 language; the page shows the one matching its
 * language (exactly, else by primary language: a `de-AT` translation on a `de` page), else the
 * source text. Values saved stay the source's (an option's text, a card's id). The pick itself is
 * src/shared/translations.ts, which the server uses for the page's title and description.
 */
import { translationIn } from "../../src/shared/translations.ts";
import type { ImageCard, LinkTranslation, PublicQuestion, QuestionTranslation } from "./types.ts";

/**
 * The translation the server picked for the operator's texts when the page's own language has
 * none (`content_language` of the page data, e.g. Swedish texts on an English-speaking page); the
 * respondent's own choice of language clears it.
 */
let contentLanguage: string | null = null;
export function setContentLanguage(tag: string | null): void {
  contentLanguage = tag;
}

/**
 * The entry of `translations` for `lang` (exact tag, else the first with the same primary
 * language), else for the content language set by {@link setContentLanguage}.
 */
export function translationFor<T>(translations: Record<string, T> | undefined, lang: string): T | undefined {
  return translationIn(translations, lang) ?? (contentLanguage ? translationIn(translations, contentLanguage) : undefined);
}

/** A link's name, description or thank-you text in `lang`, when translated. */
export function linkText(translations: Record<string, LinkTranslation> | undefined, lang: string, key: keyof LinkTranslation): string | undefined {
  return translationFor(translations, lang)?.[key] || undefined;
}

function questionTranslation(q: PublicQuestion, lang: string): QuestionTranslation | undefined {
  return translationFor(q.translations, lang);
}

/** The question's prompt in `lang`. */
export function promptOf(q: PublicQuestion, lang: string): string {
  return questionTranslation(q, lang)?.prompt || q.prompt;
}

/** The label shown for a multiple-choice option (its value stays `option`). */
export function optionLabel(q: PublicQuestion, option: string, lang: string): string {
  return questionTranslation(q, lang)?.options?.[option] || option;
}

/** The label shown for an image card (its value stays `card.id`). */
export function cardLabel(q: PublicQuestion, card: ImageCard, lang: string): string {
  return questionTranslation(q, lang)?.cards?.[card.id] || card.label;
}
