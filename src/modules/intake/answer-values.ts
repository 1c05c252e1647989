/**
 * @module intake/answer-values
 * Validates a respondent's answer against its question's type and configuration (spec: Question
 * types; docs/intake.md) and derives the answer's `text`.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import type { QuestionType } from "../links/question-model.ts";

export type QuestionForAnswer = {
  type: QuestionType;
  configuration: Record<string, unknown>;
  field_key: string;
  /** False: a voice question takes recordings only, never typed text (default true). */
  fallback_to_text?: boolean;
};

const EMAIL = z.string().trim().max(320).email();
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date `YYYY-MM-DD` (no 2024-02-30, no month 13). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** True when `value` is `base + k·step` for a whole k (within floating-point noise). */
export function isOnStep(value: number, step: number, base: number): boolean {
  const k = (value - base) / step;
  return Math.abs(k - Math.round(k)) <= 1e-9 * Math.max(1, Math.abs(k));
}

/** Whitespace and zero-width characters: text made only of these is no answer. */
const BLANK = /^[\s\u200B-\u200D\u2060\uFEFF]*$/;

/** True when a stored value counts as no answer: null, or text that is blank. */
export function isBlankValue(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === "string" && BLANK.test(value));
}

function invalid(q: QuestionForAnswer, message: string): AppError {
  return new AppError("VALIDATION_ERROR", message, { errors: [{ pointer: "/value", message }] });
}

/**
 * Checks `value` for question `q`.
 * @returns `{ value, text }`: the value to store and its text form (null when none)
 * @throws AppError VALIDATION_ERROR with pointer `/value`
 */
export function checkAnswerValue(q: QuestionForAnswer, value: unknown): { value: unknown; text: string | null } {
  const c = q.configuration;
  if (value === null) return { value: null, text: null };
  switch (q.type) {
    case "text":
    case "voice":
    case "voice_text_fallback": {
      if (typeof value !== "string") throw invalid(q, "Expected text.");
      if (q.type !== "text" && q.fallback_to_text === false) throw invalid(q, "This question takes a recording, not typed text.");
      const max = Number(c.max_characters ?? 10_000);
      if (value.length > max) throw invalid(q, `At most ${max} characters.`);
      return { value, text: value };
    }
    case "multiple_choice": {
      const options = (c.options ?? []) as string[];
      const picked = Array.isArray(value) ? value : [value];
      if (!picked.every((v) => typeof v === "string" && options.includes(v))) throw invalid(q, "Choose from the listed options.");
      if (Array.isArray(value) && !c.allow_multiple) throw invalid(q, "Only one option may be chosen.");
      if (new Set(picked).size !== picked.length) throw invalid(q, "An option was chosen twice.");
      return { value, text: (picked as string[]).join(", ") };
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) throw invalid(q, "Expected a number.");
      if (typeof c.min === "number" && value < c.min) throw invalid(q, `At least ${c.min}.`);
      if (typeof c.max === "number" && value > c.max) throw invalid(q, `At most ${c.max}.`);
      if (typeof c.step === "number" && c.step > 0 && !isOnStep(value, c.step, typeof c.min === "number" ? c.min : 0)) {
        throw invalid(q, `Expected a multiple of ${c.step}${typeof c.min === "number" ? ` from ${c.min}` : ""}.`);
      }
      return { value, text: String(value) };
    }
    case "rating": {
      const nps = c.scale_type === "nps";
      const max = nps ? 10 : Number(c.max_value ?? 5);
      const min = nps ? 0 : 1;
      if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
        throw invalid(q, `Expected a whole number from ${min} to ${max}.`);
      return { value, text: String(value) };
    }
    case "image_choice": {
      const cards = (c.cards ?? []) as { id: string; label: string }[];
      const card = cards.find((k) => k.id === value);
      if (!card) throw invalid(q, "Choose one of the cards.");
      return { value, text: card.label };
    }
    case "email": {
      const r = EMAIL.safeParse(value);
      if (!r.success) throw invalid(q, "Expected a valid email address.");
      return { value: r.data, text: r.data };
    }
    case "date": {
      if (typeof value !== "string" || !isCalendarDate(value)) throw invalid(q, "Expected a real date as YYYY-MM-DD.");
      return { value, text: value };
    }
    case "yes_no": {
      if (typeof value !== "boolean") throw invalid(q, "Expected true or false.");
      return { value, text: value ? "yes" : "no" };
    }
    case "file_upload":
      throw invalid(q, "Upload the file to the answer's file/ endpoint.");
  }
}
