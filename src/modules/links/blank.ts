/**
 * @module links/blank
 * What counts as a blank name or prompt (DESIGN §6 "missing or blank → NAME_REQUIRED"): nothing
 * left once white space and invisible characters are removed. Invisible means Unicode's
 * Default_Ignorable_Code_Point (zero-width space/joiners, word joiner, BOM, soft hyphen, Hangul
 * fillers, variation selectors, bidi marks…), which `String.prototype.trim` keeps.
 */

const INVISIBLE_OR_SPACE = /[\s\p{Default_Ignorable_Code_Point}]/gu;

/** True when `text` shows nothing: only white space and invisible characters (or nothing). */
export function isBlankText(text: string): boolean {
  return text.replace(INVISIBLE_OR_SPACE, "") === "";
}
