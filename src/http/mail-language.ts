/**
 * @module http/mail-language
 * The language of a message an operator's request causes (an invite, a test message): the best
 * of the request's `Accept-Language` that has a mail catalog (src/mail/catalog.ts), else English.
 */
import { mailLanguageOf } from "../mail/catalog.ts";
import { acceptedLanguages } from "./intake-language.ts";

/** The best catalog language of a request's `Accept-Language`, else `en`. */
export function requestMailLanguage(request: Request): string {
  for (const tag of acceptedLanguages(request.headers.get("accept-language"))) {
    const lang = mailLanguageOf(tag);
    if (lang) return lang;
  }
  return "en";
}
