/**
 * @module web/intake/questions/text
 * Free text (`text`), also used as the typed fallback of voice questions. Saved 0.8 s after
 * typing pauses and when the field loses focus.
 */
import { h } from "../dom.ts";
import { formatNumber, t } from "../i18n.ts";
import type { IntakeState } from "../state.ts";
import type { PublicQuestion } from "../types.ts";
import { labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";

const TYPING_SAVE_DELAY_MS = 800;

/** A textarea bound to a question's value; `maxCharacters` adds a limit and a counter. */
export function textArea(q: PublicQuestion, state: IntakeState, maxCharacters?: number): HTMLTextAreaElement {
  const current = state.value(q);
  const area = h("textarea", {
    rows: 4,
    maxlength: maxCharacters,
    placeholder: t("question.typePlaceholder"),
    autocomplete: "off",
  });
  area.value = typeof current === "string" ? current : "";
  area.addEventListener("input", () => state.setValue(q, area.value, TYPING_SAVE_DELAY_MS));
  area.addEventListener("change", () => state.setValue(q, area.value));
  return area;
}

/** A live "12 / 1000" counter for a textarea with a limit. */
export function characterCounter(area: HTMLTextAreaElement, maxCharacters: number): HTMLElement {
  const counter = h("p", { class: "counter", "aria-hidden": "true" });
  const update = () => (counter.textContent = `${formatNumber(area.value.length)} / ${formatNumber(maxCharacters)}`);
  area.addEventListener("input", update);
  update();
  return counter;
}

/** Renders a `text` question. */
export function renderText({ question, state }: QuestionContext): RenderedQuestion {
  const max = question.configuration.max_characters;
  const area = textArea(question, state, max);
  const extra = max ? [characterCounter(area, max)] : [];
  return { element: labelledQuestion(question, area, undefined, ...extra), control: area };
}
