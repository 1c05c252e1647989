/**
 * The configuration form of each question type (DESIGN §6 "Question types and configuration"):
 * one component per type, looked up by the draft's type. A type without configuration (text,
 * email, date, yes/no) has none. Adding a question type adds its form here (docs/console.md).
 */
import type { QuestionType } from "../../question-types.ts";
import { FileUploadConfig } from "./file-upload.tsx";
import { ImageChoiceConfig } from "./image-choice.tsx";
import { MultipleChoiceConfig } from "./multiple-choice.tsx";
import { NumberConfig } from "./number.tsx";
import { RatingConfig } from "./rating.tsx";
import type { ConfigProps } from "./shared.tsx";
import { VoiceConfig, VoiceTextConfig } from "./voice.tsx";

/** Each type's form, or null when the type takes no configuration. */
export const CONFIG_FORMS: Record<QuestionType, ((p: ConfigProps) => preact.JSX.Element) | null> = {
  voice: VoiceConfig,
  voice_text_fallback: VoiceTextConfig,
  text: null,
  multiple_choice: MultipleChoiceConfig,
  number: NumberConfig,
  rating: RatingConfig,
  image_choice: ImageChoiceConfig,
  email: null,
  date: null,
  yes_no: null,
  file_upload: FileUploadConfig,
};

/** The configuration form of the draft's type (nothing for a type without configuration). */
export function ConfigForm(p: ConfigProps) {
  const Form = CONFIG_FORMS[p.draft.type];
  return Form ? <Form {...p} /> : null;
}
