/**
 * @module web/intake/questions/image-choice
 * Visual card selection: each card is a radio button named by the card's label, showing its
 * image or (muted, looping) video. The value saved is the card's `id`.
 */
import { h, uniqueId } from "../dom.ts";
import { cardLabel } from "../content.ts";
import { language } from "../i18n.ts";
import type { ImageCard } from "../types.ts";
import { groupQuestion, optionInput, type QuestionContext, type RenderedQuestion } from "./common.ts";

function media(card: ImageCard): HTMLElement {
  if (card.media_type === "video") {
    return h("video", { class: "card-media", src: card.media_url, muted: true, loop: true, playsinline: true, preload: "metadata", "aria-hidden": "true" });
  }
  // alt="" keeps the card's accessible name to its label alone.
  return h("img", { class: "card-media", src: card.media_url, alt: "", loading: "lazy", decoding: "async" });
}

/** Renders an `image_choice` question. */
export function renderImageChoice({ question, state }: QuestionContext): RenderedQuestion {
  const current = state.value(question);
  const name = uniqueId("cards");
  const grid = h("div", { class: "options image-cards" });
  for (const card of question.configuration.cards ?? []) {
    const input = optionInput("radio", name, card.id, current === card.id, () => state.setValue(question, card.id));
    const mediaEl = media(card);
    if (mediaEl instanceof HTMLVideoElement) {
      mediaEl.muted = true;
      input.addEventListener("focus", () => void mediaEl.play().catch(() => undefined));
    }
    grid.append(
      h("label", { class: "option image-card", for: input.id }, input, mediaEl, h("span", { class: "card-label" }, cardLabel(question, card, language()))),
    );
  }
  const group = groupQuestion(question, grid, undefined, "radiogroup");
  return { element: group.element, control: group.fieldset };
}
