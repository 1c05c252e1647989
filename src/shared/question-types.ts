/**
 * @module shared/question-types
 * The question types (DESIGN §6; spec "Question types and configuration") and the two groups of
 * them that behave alike: one list each, read by the server (zod models, intake, processing,
 * themes, exports), the intake page and the console. Neutral code (no imports).
 */

/** Every question type, in the order the API documents them. */
export const QUESTION_TYPES = [
  "voice",
  "voice_text_fallback",
  "text",
  "multiple_choice",
  "number",
  "rating",
  "image_choice",
  "email",
  "date",
  "yes_no",
  "file_upload",
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** The types answered by a recording (`voice_text_fallback`, and `voice` with `fallback_to_text`, also take typed text). */
export const VOICE_TYPES: readonly QuestionType[] = ["voice", "voice_text_fallback"];

/**
 * The open types, whose answer is free text typed or spoken: masked when the link redacts, analysed
 * (insights), themed (DESIGN §12), probed, and exported with a theme column.
 */
export const OPEN_TYPES: readonly QuestionType[] = ["voice", "voice_text_fallback", "text"];

/** True for a voice type ({@link VOICE_TYPES}); `type` is any stored or sent type text. */
export function isVoiceType(type: string): boolean {
  return (VOICE_TYPES as readonly string[]).includes(type);
}

/** True for an open type ({@link OPEN_TYPES}); `type` is any stored or sent type text. */
export function isOpenType(type: string): boolean {
  return (OPEN_TYPES as readonly string[]).includes(type);
}
