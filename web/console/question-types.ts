/**
 * The question types as the console offers them: the one list of src/shared/ (issue 23) and the
 * human name of each, for the "Question type" select's option text (the option values are the
 * spec's type names, DESIGN §10).
 */
import { QUESTION_TYPES, type QuestionType } from "../../src/shared/question-types.ts";

export { QUESTION_TYPES, type QuestionType };

/** Human names of the question types. */
export const TYPE_LABELS: Record<QuestionType, string> = {
  voice: "Voice",
  voice_text_fallback: "Voice or text",
  text: "Text",
  multiple_choice: "Multiple choice",
  number: "Number",
  rating: "Rating",
  image_choice: "Image choice",
  email: "Email",
  date: "Date",
  yes_no: "Yes / no",
  file_upload: "File upload",
};
