/**
 * @module web/intake/questions/choice
 * `multiple_choice` (radio buttons, or checkboxes when `allow_multiple`) and `yes_no`
 * (two radio buttons, value `true`/`false`). Choices are saved as soon as they are made.
 */
import { h, uniqueId } from "../dom.ts";
import { optionLabel } from "../content.ts";
import { language, t } from "../i18n.ts";
import { groupQuestion, optionInput, type QuestionContext, type RenderedQuestion } from "./common.ts";

/** Renders a `multiple_choice` question. */
export function renderMultipleChoice({ question, state }: QuestionContext): RenderedQuestion {
  const options = question.configuration.options ?? [];
  const isMulti = question.configuration.allow_multiple === true;
  const current = state.value(question);
  const selected = new Set(Array.isArray(current) ? current.map(String) : typeof current === "string" ? [current] : []);
  const name = uniqueId("choice");
  const list = h("div", { class: "options options-list" });
  const inputs: HTMLInputElement[] = [];
  const onChange = () => {
    const checked = inputs.filter((i) => i.checked).map((i) => i.value);
    state.setValue(question, isMulti ? checked : (checked[0] ?? null));
  };
  for (const option of options) {
    const input = optionInput(isMulti ? "checkbox" : "radio", name, option, selected.has(option), onChange);
    inputs.push(input);
    list.append(h("label", { class: "option", for: input.id }, input, h("span", { class: "option-label" }, optionLabel(question, option, language()))));
  }
  const group = groupQuestion(question, list, isMulti ? t("question.chooseAll") : undefined, isMulti ? "group" : "radiogroup");
  return { element: group.element, control: group.fieldset };
}

/** Renders a `yes_no` question. */
export function renderYesNo({ question, state }: QuestionContext): RenderedQuestion {
  const current = state.value(question);
  const name = uniqueId("yesno");
  const list = h("div", { class: "options options-row" });
  for (const [label, value] of [
    [t("question.yes"), true],
    [t("question.no"), false],
  ] as const) {
    const input = optionInput("radio", name, String(value), current === value, () => state.setValue(question, value));
    list.append(h("label", { class: "option option-pill", for: input.id }, input, h("span", { class: "option-label" }, label)));
  }
  const group = groupQuestion(question, list, undefined, "radiogroup");
  return { element: group.element, control: group.fieldset };
}
