/**
 * @module web/intake/questions/email
 * Email address, checked on the page the way the server checks it ({@link isEmailAddress}: the
 * browser's own check lets `ann@example` through); only valid addresses are saved.
 */
import { h } from "../dom.ts";
import { t } from "../i18n.ts";
import { emailMessage, isEmailAddress } from "../messages.ts";
import { labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";

/** Renders an `email` question. */
export function renderEmail({ question, state }: QuestionContext): RenderedQuestion {
  const current = state.value(question);
  const input = h("input", {
    type: "email",
    inputmode: "email",
    autocomplete: "email",
    spellcheck: "false",
    dir: "ltr", // addresses read left to right, also on a right-to-left page
    placeholder: t("question.emailPlaceholder"),
  });
  input.value = typeof current === "string" ? current : "";
  const save = (delayMs: number) => {
    const value = input.value.trim();
    if (value === "" || isEmailAddress(value)) state.setValue(question, value, delayMs);
  };
  input.addEventListener("input", () => save(800));
  input.addEventListener("change", () => save(0));
  return {
    element: labelledQuestion(question, input),
    control: input,
    validate: () => (input.value.trim() !== "" && !isEmailAddress(input.value) ? emailMessage() : null),
  };
}
