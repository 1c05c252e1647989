/**
 * @module web/intake/questions/number
 * Numeric input honouring the configuration's `min`, `max` and `step`.
 */
import { h } from "../dom.ts";
import { t } from "../i18n.ts";
import { numberMessage } from "../messages.ts";
import type { QuestionConfiguration } from "../types.ts";
import { labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";

function rangeHint({ min, max }: QuestionConfiguration): string | undefined {
  if (min !== undefined && max !== undefined) return t("number.range", { min, max });
  if (min !== undefined) return t("number.atLeast", { min });
  if (max !== undefined) return t("number.atMost", { max });
  return undefined;
}

/** Renders a `number` question. */
export function renderNumber({ question, state }: QuestionContext): RenderedQuestion {
  const config = question.configuration;
  const current = state.value(question);
  const isInteger = config.step === undefined || Number.isInteger(config.step);
  const input = h("input", {
    type: "number",
    inputmode: isInteger && (config.min ?? 0) >= 0 ? "numeric" : "decimal",
    min: config.min,
    max: config.max,
    step: config.step ?? "any",
  });
  input.value = typeof current === "number" ? String(current) : "";
  const save = (delayMs: number) => {
    if (input.value === "") state.setValue(question, null, delayMs);
    else if (input.validity.valid) state.setValue(question, input.valueAsNumber, delayMs);
  };
  input.addEventListener("input", () => save(600));
  input.addEventListener("change", () => save(0));
  const hint = rangeHint(config);
  return {
    element: labelledQuestion(question, input, hint),
    control: input,
    validate: () => {
      const v = input.validity;
      if (v.valid) return null;
      if (v.badInput) return t("error.number");
      if (v.stepMismatch) return t("number.step", { step: config.step ?? 1 });
      return numberMessage(config);
    },
  };
}
