/**
 * @module web/intake/questions/common
 * What every question renderer receives and returns, and the two labelled layouts they share
 * (DESIGN §9 accessibility): a single control labelled by the prompt (`<label for>`), or a
 * group of options in a `<fieldset>` whose `<legend>` is the prompt.
 */
import type { IntakeApi } from "../api.ts";
import { h, uniqueId } from "../dom.ts";
import { promptOf } from "../content.ts";
import { language, t } from "../i18n.ts";
import type { IntakeState } from "../state.ts";
import type { PublicQuestion } from "../types.ts";

/** Everything a renderer may use. */
export interface QuestionContext {
  question: PublicQuestion;
  state: IntakeState;
  api: IntakeApi;
}

/** A question on screen. */
export interface RenderedQuestion {
  element: HTMLElement;
  /** The element to mark `aria-invalid` and describe with the error. */
  control: HTMLElement;
  /** A client-side format error of the current input (not `required`), or null. */
  validate?(): string | null;
  /** Finishes what is in progress before leaving the question (stops a recording). */
  settle?(): Promise<void>;
  /** Releases timers and object URLs. */
  dispose?(): void;
}

/**
 * The prompt's text plus a visual required marker that stays out of the accessible name. The
 * marker is joined to the last word by a no-break space, so it never wraps onto a line alone.
 */
export function promptContent(q: PublicQuestion): Node[] {
  const nodes: Node[] = [h("span", { class: "prompt-text" }, promptOf(q, language()).trimEnd())];
  if (q.required) {
    nodes.push(h("span", { class: "required-mark", "aria-hidden": "true", title: t("question.required") }, "\u00a0*"));
  }
  return nodes;
}

/**
 * A question with one control labelled by its prompt through `<label for>`.
 * @param hint optional help text, linked with `aria-describedby`
 */
export function labelledQuestion(q: PublicQuestion, control: HTMLElement, hint?: string, ...extra: (Node | null)[]): HTMLElement {
  const id = control.id || uniqueId("control");
  control.id = id;
  if (q.required) control.setAttribute("aria-required", "true");
  const hintEl = hint ? h("p", { class: "hint", id: uniqueId("hint") }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: `question question-${q.response_type}` }, h("label", { class: "prompt", for: id }, ...promptContent(q)), hintEl, control, ...extra);
}

/**
 * A question whose options form a group named by the prompt (`<fieldset>` + `<legend>`, also
 * referenced by `aria-labelledby` so every engine computes the same name).
 * @param role `radiogroup` for single choice, otherwise a plain group
 */
export function groupQuestion(
  q: PublicQuestion,
  options: HTMLElement,
  hint?: string,
  role: "radiogroup" | "group" = "group",
): { element: HTMLFieldSetElement; fieldset: HTMLFieldSetElement } {
  const legendId = uniqueId("prompt");
  const hintEl = hint ? h("p", { class: "hint", id: uniqueId("hint") }, hint) : null;
  const fieldset = h(
    "fieldset",
    {
      class: `question question-${q.response_type}`,
      role: role === "radiogroup" ? "radiogroup" : false,
      "aria-labelledby": legendId,
      "aria-describedby": hintEl?.id,
      "aria-required": q.required && role === "radiogroup" ? "true" : false,
    },
    h("legend", { class: "prompt", id: legendId }, ...promptContent(q)),
    hintEl,
    options,
  );
  return { element: fieldset, fieldset };
}

/** A visually hidden native input with a styled label, the building block of option lists. */
export function optionInput(
  type: "radio" | "checkbox",
  name: string,
  value: string,
  checked: boolean,
  onChange: (input: HTMLInputElement) => void,
): HTMLInputElement {
  const input = h("input", { type, name, value, id: uniqueId("option"), class: "option-input" });
  input.checked = checked;
  input.addEventListener("change", () => onChange(input));
  return input;
}
