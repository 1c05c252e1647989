/**
 * @module links/translations
 * Multilingual content of a link (issue 17, docs/api.md "Translations"): per BCP 47 language, the
 * link's `name`, `description` and `thankYouMessage`, and per question its `prompt`, option labels
 * (`options`: source option → label) and card labels (`cards`: card id → label). Values stored and
 * answered stay the source's (an option's text, a card's id); translations only change what the
 * intake page shows. Every translated key must exist in the source.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import type { FieldError } from "../../errors.ts";

/**
 * A BCP 47 language tag (`de`, `pt-BR`, `zh-Hant`), stored in canonical case (`PT-br` → `pt-BR`).
 * Any well-formed tag is accepted, not only the page's shipped catalogs: transcription knows
 * far more languages than the page has catalogs, and the page falls back (docs/api.md).
 */
export const languageTagSchema = lazySchema(() =>
  z
    .string()
    .max(35)
    .refine((v) => canonicalTag(v) !== null, "Must be a BCP 47 language tag such as de, fr or pt-BR.")
    .transform((v) => canonicalTag(v)!)
    .meta({
      description:
        "BCP 47 language tag of the link's content: the intake page's language and the language transcription expects. Omitted or null: the respondent's Accept-Language among the page's languages, else English; transcription detects the language.",
      example: "de",
    }),
);

/** The canonical form of a well-formed BCP 47 tag, or null. */
export function canonicalTag(tag: string): string | null {
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(tag)) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

const text = (max: number) => z.string().trim().min(1).max(max);

/** A link's texts in one language. */
export const linkTranslationSchema = lazySchema(() =>
  z
    .object({
      name: text(200).optional(),
      description: text(5000).optional(),
      thankYouMessage: text(5000).optional(),
      consent: text(5000).optional().describe("The text of `settings.consent` in this language (issue 25)"),
    })
    .strict(),
);

/** A question's texts in one language. */
export const questionTranslationSchema = lazySchema(() =>
  z
    .object({
      prompt: text(2000).optional(),
      options: z.record(z.string(), text(500)).optional().describe("Source option → its label in this language"),
      cards: z.record(z.string(), text(200)).optional().describe("Card id → its label in this language"),
    })
    .strict(),
);

/** `{"<language>": {...}}`, at most 20 languages; keys are checked by {@link checkLanguageKeys}. */
export const linkTranslationsSchema = lazySchema(() =>
  z
    .record(z.string().max(35), linkTranslationSchema)
    .refine((t) => Object.keys(t).length <= 20, "At most 20 languages.")
    .describe('The link\'s name, description and thankYouMessage per BCP 47 language (docs/api.md "Translations")'),
);
export const questionTranslationsSchema = lazySchema(() =>
  z
    .record(z.string().max(35), questionTranslationSchema)
    .refine((t) => Object.keys(t).length <= 20, "At most 20 languages.")
    .describe("The question's prompt, option labels and card labels per BCP 47 language"),
);

export type LinkTranslations = z.output<typeof linkTranslationsSchema>;
export type QuestionTranslations = z.output<typeof questionTranslationsSchema>;

function escapePointer(s: string): string {
  return s.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Canonical language keys (`DE` → `de`); a malformed or repeated one is an error at its pointer.
 * @returns the translations keyed by canonical tags
 */
function checkLanguageKeys<T>(translations: Record<string, T>, pointer: string, errors: FieldError[]): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [tag, value] of Object.entries(translations)) {
    const canonical = canonicalTag(tag);
    if (canonical === null) errors.push({ pointer: `${pointer}/${escapePointer(tag)}`, message: "Must be a BCP 47 language tag such as de, fr or pt-BR." });
    else if (canonical in out) errors.push({ pointer: `${pointer}/${escapePointer(tag)}`, message: `The language ${canonical} appears twice.` });
    else out[canonical] = value;
  }
  return out;
}

/**
 * Checks a link's translations against its source: a `description` needs a source description
 * (`thankYouMessage` always has one, the default).
 * @param description the link's `settings.description` after the request
 * @returns the translations with canonical language keys
 */
export function checkLinkTranslations(
  translations: LinkTranslations,
  description: string | null,
  errors: FieldError[],
  pointer = "/translations",
  hasConsent = false,
): LinkTranslations {
  const out = checkLanguageKeys(translations, pointer, errors);
  for (const [tag, t] of Object.entries(translations)) {
    if (t.description !== undefined && !description) {
      errors.push({ pointer: `${pointer}/${escapePointer(tag)}/description`, message: "The link has no description to translate." });
    }
    if (t.consent !== undefined && !hasConsent) {
      errors.push({ pointer: `${pointer}/${escapePointer(tag)}/consent`, message: "The link has no settings.consent to translate." });
    }
  }
  return out;
}

/**
 * Checks a question's translations against its source: `options` only for multiple_choice, each
 * key one of its options; `cards` only for image_choice, each key one of its card ids.
 * @param configuration the question's normalised configuration
 * @returns the translations with canonical language keys
 */
export function checkQuestionTranslations(
  translations: QuestionTranslations,
  type: string,
  configuration: Record<string, unknown>,
  errors: FieldError[],
  pointer: string,
): QuestionTranslations {
  const out = checkLanguageKeys(translations, pointer, errors);
  const options = new Set(Array.isArray(configuration.options) ? (configuration.options as string[]) : []);
  const cards = new Set(Array.isArray(configuration.cards) ? (configuration.cards as { id: string }[]).map((c) => c.id) : []);
  for (const [tag, t] of Object.entries(translations)) {
    const at = `${pointer}/${escapePointer(tag)}`;
    for (const key of Object.keys(t.options ?? {})) {
      if (type !== "multiple_choice") errors.push({ pointer: `${at}/options`, message: "Only multiple_choice questions have options." });
      else if (!options.has(key)) errors.push({ pointer: `${at}/options/${escapePointer(key)}`, message: "Not one of the question's options." });
    }
    for (const key of Object.keys(t.cards ?? {})) {
      if (type !== "image_choice") errors.push({ pointer: `${at}/cards`, message: "Only image_choice questions have cards." });
      else if (!cards.has(key)) errors.push({ pointer: `${at}/cards/${escapePointer(key)}`, message: "Not one of the question's card ids." });
    }
  }
  return out;
}
