/**
 * The link builder's model of one question while it is edited (docs/console.md "Link builder"):
 * conversion from an API `Question` and back to the request body of `POST links/` /
 * `PATCH links/{uuid}/`, default configurations per type (DESIGN §6), generated `field_key`s and
 * server errors by JSON pointer.
 */
import type { ApiError } from "../api.ts";
import type { Condition, EvaluatorConfig, Question, QuestionType } from "../../../src/modules/links/model.ts";
import { OPEN_TYPES } from "../../../src/shared/question-types.ts";

export type Card = { id: string; label: string; media_url: string; media_type: "image" | "video" };

/** Form state of one question; numbers stay strings until saved, so a field can be empty. */
export type Draft = {
  /** Local id, stable across reordering (keys, DOM ids, condition references). */
  key: string;
  uuid?: string;
  prompt: string;
  type: QuestionType;
  field_key: string;
  /** False while `field_key` follows the prompt. */
  keyEdited: boolean;
  required: boolean;
  options: string[];
  allowMultiple: boolean;
  cards: Card[];
  scaleType: "stars" | "emojis" | "nps" | "numbers";
  maxValue: string;
  min: string;
  max: string;
  step: string;
  allowedTypes: string;
  maxSizeMb: string;
  maxDuration: string;
  maxCharacters: string;
  aiEvaluation: boolean;
  /** Condition: the local key of the tested question ("" = always shown). */
  condOn: string;
  condOperator: "less_than" | "equals" | "contains";
  condValue: string;
  probing: boolean;
  clarity: string;
  maxFollowUps: string;
  customFields: string;
  fallbackToText: boolean;
  /** Completed responses that answered it (from the link's stats); 0 for new questions. */
  answered: number;
};

let seq = 0;
/** A new local key. */
/** `condOn` of a condition on a hidden field (issue 25): this prefix and the field's name (draft keys start with `q`). */
export const HIDDEN_CONDITION = "hidden:";

export function newKey(): string {
  seq += 1;
  return `q${Date.now().toString(36)}${seq}`;
}

/** snake_case of a prompt (ASCII, ≤ 64, starts with a letter), as the server would make it. */
export function fieldKeyOf(prompt: string): string {
  let key = prompt
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 60)
    .replace(/_+$/, "");
  if (!/^[a-z]/.test(key)) key = key ? `q_${key}` : "question";
  return key;
}

/** Makes every question's field_key unique within the link (`_2`, `_3`, …), keeping edited ones. */
export function uniqueKeys(drafts: Draft[]): Draft[] {
  const taken = new Set(drafts.filter((d) => d.keyEdited || d.uuid).map((d) => d.field_key));
  return drafts.map((d) => {
    if (d.keyEdited || d.uuid) return d;
    const base = fieldKeyOf(d.prompt);
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    taken.add(key);
    return key === d.field_key ? d : { ...d, field_key: key };
  });
}

/** A fresh question of `type` with the defaults of DESIGN §6. */
export function blankDraft(type: QuestionType = "text"): Draft {
  return {
    key: newKey(),
    prompt: "",
    type,
    field_key: "",
    keyEdited: false,
    required: false,
    options: ["", ""],
    allowMultiple: false,
    cards: [{ id: "card_1", label: "", media_url: "", media_type: "image" }],
    scaleType: "stars",
    maxValue: "5",
    min: "",
    max: "",
    step: "",
    allowedTypes: "",
    maxSizeMb: "10",
    maxDuration: "120",
    maxCharacters: "1000",
    aiEvaluation: true,
    condOn: "",
    condOperator: "equals",
    condValue: "",
    probing: false,
    clarity: "0.6",
    maxFollowUps: "1",
    customFields: "",
    fallbackToText: true,
    answered: 0,
  };
}

const str = (v: unknown, fallback = ""): string => (v === undefined || v === null ? fallback : String(v));

/** A stored question as a draft; `keyOf` maps field keys to the drafts' local keys. */
export function draftOf(q: Question, keyOfField: Map<string, string>, answered: number): Draft {
  const c = q.configuration;
  // The API types both as plain objects; they hold what conditionSchema and evaluatorConfigSchema accepted.
  const cond = q.condition as Partial<Extract<Condition, { field: string }>>;
  const ev = q.evaluator_config as EvaluatorConfig;
  const d = blankDraft(q.response_type);
  const key = keyOfField.get(q.field_key) ?? newKey();
  return {
    ...d,
    key,
    uuid: q.uuid,
    prompt: q.prompt,
    field_key: q.field_key,
    keyEdited: true,
    required: q.required,
    options: Array.isArray(c.options) ? (c.options as string[]) : d.options,
    allowMultiple: Boolean(c.allow_multiple),
    cards: Array.isArray(c.cards) ? (c.cards as Card[]) : d.cards,
    scaleType: (c.scale_type as Draft["scaleType"]) ?? d.scaleType,
    maxValue: str(c.max_value, d.maxValue),
    min: str(c.min),
    max: str(c.max),
    step: str(c.step),
    allowedTypes: Array.isArray(c.allowed_types) ? (c.allowed_types as string[]).join(", ") : "",
    maxSizeMb: str(c.max_size_mb, d.maxSizeMb),
    maxDuration: str(c.max_duration, d.maxDuration),
    maxCharacters: str(c.max_characters, d.maxCharacters),
    aiEvaluation: c.enable_ai_evaluation === undefined ? true : Boolean(c.enable_ai_evaluation),
    // A field that is no question's is one of the link's hidden fields (the API checked it).
    condOn: cond.field ? (keyOfField.get(cond.field) ?? `${HIDDEN_CONDITION}${cond.field}`) : "",
    condOperator: cond.operator ?? "equals",
    condValue: str(cond.value),
    probing: q.enable_dynamic_probing,
    clarity: str(ev.clarity_threshold, d.clarity),
    maxFollowUps: str(ev.max_follow_ups, d.maxFollowUps),
    customFields: (ev.custom_fields ?? []).join(", "),
    fallbackToText: q.fallback_to_text,
    answered,
  };
}

/** A number field's value: a number, or the raw text when it is not one (the server says why). */
const num = (s: string): number | string | undefined => (s.trim() === "" ? undefined : Number.isFinite(Number(s)) ? Number(s) : s);
const list = (s: string): string[] =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** The configuration object for the draft's type (DESIGN §6). */
export function configurationOf(d: Draft): Record<string, unknown> {
  const drop = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (d.type) {
    case "voice":
      return drop({ max_duration: num(d.maxDuration), enable_ai_evaluation: d.aiEvaluation });
    case "voice_text_fallback":
      return drop({ max_duration: num(d.maxDuration), max_characters: num(d.maxCharacters) });
    case "multiple_choice":
      return { options: d.options.map((o) => o.trim()), allow_multiple: d.allowMultiple };
    case "number":
      return drop({ min: num(d.min), max: num(d.max), step: num(d.step) });
    case "rating":
      return drop({ scale_type: d.scaleType, max_value: d.scaleType === "nps" ? 10 : num(d.maxValue) });
    case "image_choice":
      return { cards: d.cards.map((c) => ({ ...c, id: c.id.trim(), label: c.label.trim(), media_url: c.media_url.trim() })) };
    case "file_upload":
      return drop({ allowed_types: list(d.allowedTypes), max_size_mb: num(d.maxSizeMb) });
    default:
      return {};
  }
}

/** The cards with a new empty image card appended, its id `card_<n>` the first one not taken. */
export function addCard(cards: Card[]): Card[] {
  let n = cards.length + 1;
  while (cards.some((c) => c.id === `card_${n}`)) n++;
  return [...cards, { id: `card_${n}`, label: "", media_url: "", media_type: "image" }];
}

/** Types whose answers can be probed with follow-up questions. */
export const PROBE_TYPES = OPEN_TYPES;

/** The question as sent in `questions` of POST/PATCH links. */
export function payloadOf(d: Draft, index: number, all: Draft[]): Record<string, unknown> {
  const tested = all.findIndex((x) => x.key === d.condOn);
  let condition: Record<string, unknown> = {};
  if (d.condOn.startsWith(HIDDEN_CONDITION)) {
    condition = { show_if: "field_value", field: d.condOn.slice(HIDDEN_CONDITION.length), operator: d.condOperator, value: d.condValue };
  } else if (d.condOn && tested >= 0 && tested < index) {
    const t = all[tested]!;
    const numeric = t.type === "rating" || t.type === "number" || d.condOperator === "less_than";
    const value = numeric && d.condValue.trim() !== "" && Number.isFinite(Number(d.condValue)) ? Number(d.condValue) : d.condValue;
    condition = { show_if: "field_value", field: t.field_key, operator: d.condOperator, value };
  }
  const probing = PROBE_TYPES.includes(d.type) && d.probing;
  return {
    ...(d.uuid ? { uuid: d.uuid } : {}),
    prompt: d.prompt,
    type: d.type,
    field_key: d.field_key,
    order: index,
    required: d.required,
    configuration: configurationOf(d),
    condition,
    enable_dynamic_probing: probing,
    fallback_to_text: d.fallbackToText,
    evaluator_config: probing
      ? Object.fromEntries(
          Object.entries({ clarity_threshold: num(d.clarity), max_follow_ups: num(d.maxFollowUps), custom_fields: list(d.customFields) }).filter(
            ([, v]) => v !== undefined,
          ),
        )
      : {},
  };
}

/** Server errors by JSON pointer (e.g. `/questions/2/configuration/options/1`). */
export type FieldErrors = Map<string, string[]>;

/** Collects an API error's pointers. */
export function fieldErrorsOf(err: ApiError | null): FieldErrors {
  const map: FieldErrors = new Map();
  for (const e of err?.errors ?? []) {
    if (!e.pointer) continue;
    map.set(e.pointer, [...(map.get(e.pointer) ?? []), e.message ?? e.detail ?? "Invalid value."]);
  }
  return map;
}

/** The messages for `pointer` (and, with `deep`, everything under it). */
export function errorsAt(errors: FieldErrors, pointer: string, deep = false): string[] {
  const out: string[] = [];
  for (const [p, msgs] of errors) if (p === pointer || (deep && p.startsWith(`${pointer}/`))) out.push(...msgs);
  return out;
}
