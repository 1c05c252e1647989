/**
 * @module web/console/pages/question-draft.test
 * The link builder's pure draft logic (question-draft.ts): field keys made from prompts and kept
 * unique, the configuration sent per type, conditions on earlier questions and hidden fields,
 * probing, stored question → draft → request body round trips, and server errors by JSON
 * pointer. Request bodies are checked against the server's own question schemas.
 */
import { describe, expect, test } from "bun:test";
import { CONFIGURATION_SCHEMAS, questionInputSchema } from "../../../src/modules/links/question-model.ts";
import type { Question } from "../../../src/modules/links/model.ts";
import { QUESTION_TYPES } from "../../../src/shared/question-types.ts";
import { ApiError } from "../api.ts";
import {
  HIDDEN_CONDITION,
  addCard,
  blankDraft,
  configurationOf,
  draftOf,
  errorsAt,
  fieldErrorsOf,
  fieldKeyOf,
  payloadOf,
  uniqueKeys,
  type Draft,
} from "./question-draft.ts";
import { swap } from "./question-fields.tsx";

const draft = (patch: Partial<Draft>): Draft => ({ ...blankDraft(patch.type), ...patch });

/** A stored question as `GET links/{uuid}/` returns it. */
const stored = (patch: Partial<Question>): Question => ({
  uuid: "0b6f0c1e-1111-4222-8333-944455556666",
  prompt: "How was it?",
  response_type: "text",
  field_key: "how_was_it",
  order: 0,
  required: false,
  configuration: {},
  condition: {},
  enable_dynamic_probing: false,
  fallback_to_text: true,
  evaluator_config: {},
  translations: {},
  date_created: "2026-01-01T00:00:00.000Z",
  date_updated: "2026-01-01T00:00:00.000Z",
  ...patch,
});

const rating = draft({ key: "k1", type: "rating", field_key: "score" });
const choice = draft({ key: "k2", type: "multiple_choice", field_key: "colour", options: ["Red", "Blue"] });

describe("field keys", () => {
  test("snake_case of the prompt: accents folded, punctuation collapsed, a letter first, at most 60 characters", () => {
    expect(fieldKeyOf("How was your visit?")).toBe("how_was_your_visit");
    expect(fieldKeyOf("  Ça coûte combien ? ")).toBe("ca_coute_combien");
    expect(fieldKeyOf("3 things to improve")).toBe("q_3_things_to_improve");
    expect(fieldKeyOf("¿?!")).toBe("question");
    const long = fieldKeyOf("word ".repeat(40));
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long).toMatch(/^[a-z][a-z0-9_]*[a-z0-9]$/);
  });

  test("uniqueKeys numbers repeated prompts and keeps edited and stored keys (which others avoid)", () => {
    const out = uniqueKeys([
      draft({ prompt: "Why?", field_key: "why", keyEdited: true }),
      draft({ prompt: "Why?" }),
      draft({ prompt: "Why?" }),
      draft({ prompt: "Other", uuid: "u1", field_key: "other_2" }),
      draft({ prompt: "Other" }),
      draft({ prompt: "Other" }),
    ]);
    expect(out.map((d) => d.field_key)).toEqual(["why", "why_2", "why_3", "other_2", "other", "other_3"]);
  });
});

describe("configuration per type", () => {
  test("number fields: empty ones are left out, numbers are numbers, other text is sent for the server to refuse", () => {
    expect(configurationOf(draft({ type: "number", min: "", max: " 10 ", step: "0.5" }))).toEqual({ max: 10, step: 0.5 });
    expect(configurationOf(draft({ type: "number", min: "ten" }))).toEqual({ min: "ten" });
    expect(configurationOf(draft({ type: "voice", maxDuration: "", aiEvaluation: false }))).toEqual({ enable_ai_evaluation: false });
    expect(configurationOf(draft({ type: "voice_text_fallback", maxDuration: "90", maxCharacters: "500" }))).toEqual({ max_duration: 90, max_characters: 500 });
  });

  test("rating: NPS is always 0–10 whatever the highest value field says; other scales send it", () => {
    expect(configurationOf(draft({ type: "rating", scaleType: "nps", maxValue: "5" }))).toEqual({ scale_type: "nps", max_value: 10 });
    expect(configurationOf(draft({ type: "rating", scaleType: "emojis", maxValue: "4" }))).toEqual({ scale_type: "emojis", max_value: 4 });
  });

  test("choices, cards and file types are trimmed; types without configuration send {}", () => {
    expect(configurationOf(draft({ type: "multiple_choice", options: [" Red ", "Blue"], allowMultiple: true }))).toEqual({
      options: ["Red", "Blue"],
      allow_multiple: true,
    });
    const cards = [{ id: " a ", label: " Cat ", media_url: " https://x.test/c.png ", media_type: "image" as const }];
    expect(configurationOf(draft({ type: "image_choice", cards }))).toEqual({
      cards: [{ id: "a", label: "Cat", media_url: "https://x.test/c.png", media_type: "image" }],
    });
    expect(configurationOf(draft({ type: "file_upload", allowedTypes: " image/png,, application/pdf ,", maxSizeMb: "5" }))).toEqual({
      allowed_types: ["image/png", "application/pdf"],
      max_size_mb: 5,
    });
    for (const type of ["text", "email", "date", "yes_no"] as const) expect(configurationOf(draft({ type, options: ["x"], min: "1" }))).toEqual({});
  });

  test("a new card takes the first free card_<n> id", () => {
    const one = blankDraft("image_choice").cards;
    expect(addCard(one).map((c) => c.id)).toEqual(["card_1", "card_2"]);
    const taken = [
      { ...one[0]!, id: "card_3" },
      { ...one[0]!, id: "card_1" },
    ];
    expect(addCard(taken).map((c) => c.id)).toEqual(["card_3", "card_1", "card_4"]);
    expect(swap(["a", "b", "c"], 0, 2)).toEqual(["c", "b", "a"]);
  });

  test("every type's default draft (with its options and cards filled in) is a body the server accepts", () => {
    for (const type of QUESTION_TYPES) {
      const d = draft({
        type,
        prompt: `A ${type} question`,
        field_key: `q_${type}`,
        options: ["One", "Two"],
        cards: [{ id: "card_1", label: "Cat", media_url: "https://example.com/cat.png", media_type: "image" }],
      });
      const body = questionInputSchema.parse(payloadOf(d, 0, [d]));
      expect({ type, ok: CONFIGURATION_SCHEMAS[type].safeParse(body.configuration).success }).toEqual({ type, ok: true });
    }
  });
});

describe("conditions and probing", () => {
  test("a condition on an earlier rating sends a number; on a choice, the text", () => {
    const d = draft({ key: "k3", condOn: "k1", condOperator: "less_than", condValue: "7" });
    expect(payloadOf(d, 2, [rating, choice, d]).condition).toEqual({ show_if: "field_value", field: "score", operator: "less_than", value: 7 });
    const e = draft({ key: "k3", condOn: "k2", condOperator: "equals", condValue: "7" });
    expect(payloadOf(e, 2, [rating, choice, e]).condition).toEqual({ show_if: "field_value", field: "colour", operator: "equals", value: "7" });
  });

  test("a condition on a question that is no longer earlier (or gone) is dropped; one on a hidden field is kept", () => {
    const d = draft({ key: "k0", condOn: "k1", condValue: "3" });
    expect(payloadOf(d, 0, [d, rating]).condition).toEqual({});
    expect(payloadOf(draft({ condOn: "gone", condValue: "3" }), 1, [rating]).condition).toEqual({});
    const h = draft({ condOn: `${HIDDEN_CONDITION}plan`, condOperator: "equals", condValue: "pro" });
    expect(payloadOf(h, 0, [h]).condition).toEqual({ show_if: "field_value", field: "plan", operator: "equals", value: "pro" });
  });

  test("probing is sent only for open question types, with its evaluator configuration", () => {
    const on = { probing: true, clarity: "0.4", maxFollowUps: "2", customFields: "budget, team_size" };
    const text = payloadOf(draft({ type: "text", ...on }), 0, []);
    expect([text.enable_dynamic_probing, text.evaluator_config]).toEqual([
      true,
      { clarity_threshold: 0.4, max_follow_ups: 2, custom_fields: ["budget", "team_size"] },
    ]);
    const rated = payloadOf(draft({ type: "rating", ...on }), 0, []);
    expect([rated.enable_dynamic_probing, rated.evaluator_config]).toEqual([false, {}]);
  });
});

describe("stored question → draft → body", () => {
  test("configuration, condition and evaluator configuration come back as they were stored", () => {
    const keyOf = new Map([["score", "k1"]]);
    const q = stored({
      response_type: "voice",
      field_key: "story",
      required: true,
      configuration: { max_duration: 45, enable_ai_evaluation: false },
      condition: { show_if: "field_value", field: "score", operator: "less_than", value: 5 },
      enable_dynamic_probing: true,
      evaluator_config: { clarity_threshold: 0.7, max_follow_ups: 3, custom_fields: ["cause"] },
    });
    const d = draftOf(q, keyOf, 4);
    expect([d.uuid, d.keyEdited, d.answered, d.condOn]).toEqual([q.uuid, true, 4, "k1"]);
    const body = payloadOf(d, 1, [rating, d]);
    expect(body).toMatchObject({
      uuid: q.uuid,
      type: "voice",
      field_key: "story",
      order: 1,
      required: true,
      configuration: q.configuration,
      condition: q.condition,
      enable_dynamic_probing: true,
      evaluator_config: q.evaluator_config,
    });
  });

  test("a condition on a field that is no question's is read as a hidden field", () => {
    const d = draftOf(stored({ condition: { show_if: "field_value", field: "plan", operator: "equals", value: "pro" } }), new Map(), 0);
    expect([d.condOn, d.condOperator, d.condValue]).toEqual([`${HIDDEN_CONDITION}plan`, "equals", "pro"]);
  });

  test("stored choices, cards, scale and file types fill the draft; missing keys take the type's defaults", () => {
    const mc = draftOf(stored({ response_type: "multiple_choice", configuration: { options: ["A", "B", "C"], allow_multiple: true } }), new Map(), 0);
    expect([mc.options, mc.allowMultiple]).toEqual([["A", "B", "C"], true]);
    const r = draftOf(stored({ response_type: "rating", configuration: { scale_type: "numbers" } }), new Map(), 0);
    expect([r.scaleType, r.maxValue]).toEqual(["numbers", "5"]);
    const f = draftOf(stored({ response_type: "file_upload", configuration: { allowed_types: ["image/png", "text/csv"], max_size_mb: 3 } }), new Map(), 0);
    expect([f.allowedTypes, f.maxSizeMb]).toEqual(["image/png, text/csv", "3"]);
    const v = draftOf(stored({ response_type: "voice", configuration: {} }), new Map(), 0);
    expect([v.maxDuration, v.aiEvaluation, v.clarity, v.maxFollowUps]).toEqual(["120", true, "0.6", "1"]);
  });
});

describe("server errors by JSON pointer", () => {
  test("messages are grouped by pointer; deep lookups include everything under it", () => {
    const err = new ApiError(422, "VALIDATION_ERROR", "Invalid.", [
      { pointer: "/questions/1/configuration/options/0", message: "Too short." },
      { pointer: "/questions/1/configuration/options", message: "Options must be unique." },
      { pointer: "/questions/1/configuration/options/0", detail: "Empty." },
      { pointer: "/questions/10/prompt", message: "Another question's." },
      { message: "No pointer." },
    ]);
    const map = fieldErrorsOf(err);
    expect(errorsAt(map, "/questions/1/configuration/options/0")).toEqual(["Too short.", "Empty."]);
    expect(errorsAt(map, "/questions/1/configuration/options")).toEqual(["Options must be unique."]);
    expect(errorsAt(map, "/questions/1/configuration", true).sort()).toEqual(["Empty.", "Options must be unique.", "Too short."]);
    expect(errorsAt(map, "/questions/10/configuration", true)).toEqual([]);
    // "/questions/1" is not a prefix of "/questions/10/…": a pointer's own segments only.
    expect(errorsAt(map, "/questions/1", true)).not.toContain("Another question's.");
    expect(fieldErrorsOf(null).size).toBe(0);
  });
});
