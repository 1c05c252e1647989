/**
 * @module shared/question-types
 * The eleven question types (spec "Question types and configuration", DESIGN §6): the one list
 * the server's schemas, the intake page and the console share (issue 23). Pure data, no imports.
 */

/** Every `type` / `response_type` a question may have, in the order the console offers them. */
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
