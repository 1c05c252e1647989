/**
 * @module web/intake/questions
 * One renderer per question type (spec "Question types and configuration").
 */
import type { QuestionType } from "../types.ts";
import { renderMultipleChoice, renderYesNo } from "./choice.ts";
import type { QuestionContext, RenderedQuestion } from "./common.ts";
import { renderDate } from "./date.ts";
import { renderEmail } from "./email.ts";
import { renderFileUpload } from "./file-upload.ts";
import { renderImageChoice } from "./image-choice.ts";
import { renderNumber } from "./number.ts";
import { renderRating } from "./rating.ts";
import { renderText } from "./text.ts";
import { renderVoice } from "./voice.ts";

export type { QuestionContext, RenderedQuestion } from "./common.ts";

const RENDERERS: Record<QuestionType, (ctx: QuestionContext) => RenderedQuestion> = {
  voice: renderVoice,
  voice_text_fallback: renderVoice,
  text: renderText,
  multiple_choice: renderMultipleChoice,
  number: renderNumber,
  rating: renderRating,
  image_choice: renderImageChoice,
  email: renderEmail,
  date: renderDate,
  yes_no: renderYesNo,
  file_upload: renderFileUpload,
};

/** Renders a question with the renderer of its type; an unknown type falls back to text. */
export function renderQuestion(ctx: QuestionContext): RenderedQuestion {
  const render = RENDERERS[ctx.question.response_type] ?? renderText;
  return render(ctx);
}
