/**
 * @module web/intake/questions/date
 * Date picker (`<input type="date">`, value `YYYY-MM-DD`).
 */
import { h } from "../dom.ts";
import { t } from "../i18n.ts";
import { labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";

/** Renders a `date` question. */
export function renderDate({ question, state }: QuestionContext): RenderedQuestion {
  const current = state.value(question);
  const input = h("input", { type: "date" });
  input.value = typeof current === "string" ? current : "";
  input.addEventListener("change", () => {
    if (input.value === "" || input.validity.valid) state.setValue(question, input.value);
  });
  return {
    element: labelledQuestion(question, input),
    control: input,
    validate: () => (input.validity.valid ? null : t("error.date")),
  };
}
