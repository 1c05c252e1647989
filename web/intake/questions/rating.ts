/**
 * @module web/intake/questions/rating
 * Rating scales (spec: `scale_type` stars | emojis | nps | numbers, `max_value`). Every point is
 * a radio button whose accessible name is its number ("4 stars" for stars, "4 – Good" style for
 * emojis); nps always runs 0..10 with "Not likely" / "Very likely" captions.
 */
import { h, uniqueId } from "../dom.ts";
import { formatNumber, t, type MessageKey } from "../i18n.ts";
import type { PublicQuestion } from "../types.ts";
import { groupQuestion, optionInput, type QuestionContext, type RenderedQuestion } from "./common.ts";

const FACE_WORDS: MessageKey[] = ["rating.face0", "rating.face1", "rating.face2", "rating.face3", "rating.face4"];
const SVG_NS = "http://www.w3.org/2000/svg";

interface Point {
  value: number;
  /** Accessible name. */
  name: string;
  /** What is drawn (hidden from assistive technology): text, or a face index 0..4 for emojis. */
  visual: string | number;
}

/**
 * A face drawn in SVG (0 = very bad … 4 = very good): emoji glyphs depend on the respondent's
 * fonts, and no font may be fetched.
 */
function faceSvg(face: number): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("focusable", "false");
  const curve = (face - 2) * 2.5;
  const shapes: [string, Record<string, string>][] = [
    ["circle", { cx: "12", cy: "12", r: "10.5", fill: "none", stroke: "currentColor", "stroke-width": "1.6" }],
    ["circle", { cx: "8.5", cy: "9.5", r: "1.3", fill: "currentColor" }],
    ["circle", { cx: "15.5", cy: "9.5", r: "1.3", fill: "currentColor" }],
    [
      "path",
      {
        d: `M7.5 ${15.5 - curve / 2} Q12 ${15.5 + curve} 16.5 ${15.5 - curve / 2}`,
        fill: "none",
        stroke: "currentColor",
        "stroke-width": "1.6",
        "stroke-linecap": "round",
      },
    ],
  ];
  for (const [tag, attrs] of shapes) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    svg.append(el);
  }
  return svg;
}

/** The points of a rating question's scale, lowest first. */
export function ratingPoints(q: PublicQuestion): Point[] {
  const scale = q.configuration.scale_type ?? "stars";
  if (scale === "nps") {
    return Array.from({ length: 11 }, (_, value) => ({ value, name: formatNumber(value), visual: formatNumber(value) }));
  }
  const max = Math.max(1, Math.min(q.configuration.max_value ?? 5, 10));
  return Array.from({ length: max }, (_, i) => {
    const value = i + 1;
    if (scale === "stars") return { value, name: t("rating.stars", { count: value }), visual: "★" };
    if (scale === "emojis") {
      const face = max === 1 ? 4 : Math.round((i * (FACE_WORDS.length - 1)) / (max - 1));
      return { value, name: t("rating.faceName", { value, word: t(FACE_WORDS[face]!) }), visual: face };
    }
    return { value, name: formatNumber(value), visual: formatNumber(value) };
  });
}

/** Renders a `rating` question. */
export function renderRating({ question, state }: QuestionContext): RenderedQuestion {
  const scale = question.configuration.scale_type ?? "stars";
  const current = state.value(question);
  const name = uniqueId("rating");
  const points = ratingPoints(question);
  const list = h("div", { class: `options rating rating-${scale}` });
  const labels: HTMLLabelElement[] = [];
  const paint = (value: number | null) => labels.forEach((label, i) => label.classList.toggle("is-filled", value !== null && points[i]!.value <= value));
  for (const point of points) {
    const input = optionInput("radio", name, String(point.value), current === point.value, () => {
      paint(point.value);
      state.setValue(question, point.value);
    });
    const label = h(
      "label",
      { class: "option rating-point", for: input.id, title: point.name },
      input,
      h("span", { class: "rating-visual", "aria-hidden": "true" }, typeof point.visual === "number" ? faceSvg(point.visual) : point.visual),
      h("span", { class: "visually-hidden" }, point.name),
    );
    labels.push(label);
    list.append(label);
  }
  if (scale === "stars") paint(typeof current === "number" ? current : null);
  const body =
    scale === "nps"
      ? h(
          "div",
          { class: "rating-wrap" },
          list,
          h("div", { class: "rating-captions", "aria-hidden": "true" }, h("span", {}, t("rating.npsLow")), h("span", {}, t("rating.npsHigh"))),
        )
      : list;
  const hint = scale === "nps" ? t("rating.npsHint", { low: 0, high: 10 }) : undefined;
  const group = groupQuestion(question, body, hint, "radiogroup");
  return { element: group.element, control: group.fieldset };
}
