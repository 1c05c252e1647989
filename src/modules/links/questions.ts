/**
 * @module links/questions
 * Turns validated question inputs into stored questions (DESIGN §6): per-type configuration
 * with defaults, `order` defaulting to the array index, generated unique `field_key`s, and
 * conditions that may only test an earlier question. All problems are reported at once.
 */
import { AppError, type FieldError } from "../../errors.ts";
import { issuesToFieldErrors } from "../../http/validation.ts";
import { toFieldKey, uniqueVariant } from "../../slugs.ts";
import { CONFIGURATION_SCHEMAS, type PatchQuestionInput, questionInputSchema, type QuestionInput, type QuestionType } from "./question-model.ts";
import { checkQuestionTranslations, type QuestionTranslations } from "./translations.ts";

/** A stored question's members as an input (what a PATCH starts from). */
export type StoredQuestion = {
  uuid: string;
  prompt: string;
  type: string;
  field_key: string;
  order: number;
  required: number;
  configuration: string;
  condition: string;
  enable_dynamic_probing: number;
  fallback_to_text: number;
  evaluator_config: string;
  /** JSON of the question's translations (issue 17). */
  translations?: string;
};

/**
 * Resolves a PATCH's question list against the stored questions (docs/api.md "Editing
 * questions"): a question sent with the `uuid` of a stored one keeps every member it does not
 * send; one without `uuid` is new and takes the creation defaults.
 * @param existing the link's stored questions by uuid
 * @returns full question inputs, ready for {@link normalizeQuestions}
 * @throws AppError VALIDATION_ERROR with pointers: an unknown uuid (`/questions/i/uuid`), a new
 *   question without prompt, a changed `type` whose stored configuration does not fit the new type
 *   and no configuration sent (`/questions/i/configuration`)
 */
export function mergePatchedQuestions(inputs: PatchQuestionInput[], existing: Map<string, StoredQuestion>, pointerBase = "/questions"): QuestionInput[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const out = inputs.map((input, i): QuestionInput | null => {
    const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as PatchQuestionInput;
    if (given.uuid === undefined) {
      const parsed = questionInputSchema.safeParse(given);
      if (!parsed.success) errors.push(...issuesToFieldErrors(parsed.error.issues, [...pointerBase.split("/").slice(1), i]));
      return parsed.success ? parsed.data : null;
    }
    if (seen.has(given.uuid)) {
      errors.push({ pointer: `${pointerBase}/${i}/uuid`, message: "A question uuid may appear only once in the list." });
      return null;
    }
    seen.add(given.uuid);
    const row = existing.get(given.uuid);
    if (!row) {
      errors.push({ pointer: `${pointerBase}/${i}/uuid`, message: "Unknown question uuid for this link." });
      return null;
    }
    const stored: QuestionInput = {
      uuid: row.uuid,
      prompt: row.prompt,
      type: row.type as QuestionType,
      field_key: row.field_key,
      order: row.order,
      required: row.required === 1,
      configuration: JSON.parse(row.configuration) as Record<string, unknown>,
      condition: JSON.parse(row.condition) as QuestionInput["condition"],
      enable_dynamic_probing: row.enable_dynamic_probing === 1,
      fallback_to_text: row.fallback_to_text === 1,
      evaluator_config: JSON.parse(row.evaluator_config) as QuestionInput["evaluator_config"],
      translations: JSON.parse(row.translations || "{}") as QuestionInput["translations"],
    };
    const merged: QuestionInput = { ...stored, ...given } as QuestionInput;
    if (
      given.type !== undefined &&
      given.type !== row.type &&
      given.configuration === undefined &&
      !CONFIGURATION_SCHEMAS[given.type].safeParse(stored.configuration).success
    ) {
      errors.push({
        pointer: `${pointerBase}/${i}/configuration`,
        message: `The type changes from ${row.type} to ${given.type}: send a configuration for ${given.type} (the stored one does not fit it).`,
      });
    }
    return merged;
  });
  if (errors.length) throw new AppError("VALIDATION_ERROR", `The questions are not valid: ${errors[0]!.pointer} ${errors[0]!.message}`, { errors });
  return out as QuestionInput[];
}

/** A question ready to store: every field resolved. */
export type NormalizedQuestion = {
  uuid: string | null;
  position: number;
  order: number;
  prompt: string;
  type: QuestionType;
  field_key: string;
  required: boolean;
  configuration: Record<string, unknown>;
  condition: Record<string, unknown>;
  enable_dynamic_probing: boolean;
  fallback_to_text: boolean;
  evaluator_config: Record<string, unknown>;
  /** Per language: prompt, option and card labels, checked against the source (issue 17). */
  translations: QuestionTranslations;
};

/**
 * Normalises a link's question list.
 * @param inputs questions as parsed by `questionInputSchema`
 * @param pointerBase JSON pointer of the list in the request (`/questions`)
 * @param hiddenFields the link's hidden fields, which a condition may test too (issue 25)
 * @returns questions sorted by `order`, ties by array position
 * @throws AppError VALIDATION_ERROR with one pointer per problem (repeated `field_key` or `uuid`,
 *   configuration, condition)
 */
export function normalizeQuestions(inputs: QuestionInput[], pointerBase = "/questions", hiddenFields: readonly string[] = []): NormalizedQuestion[] {
  const errors: FieldError[] = [];
  const given = new Set<string>();
  inputs.forEach((q, i) => {
    if (!q.field_key) return;
    if (given.has(q.field_key)) errors.push({ pointer: `${pointerBase}/${i}/field_key`, message: "field_key must be unique within the link." });
    given.add(q.field_key);
  });
  const seenUuids = new Set<string>();
  inputs.forEach((q, i) => {
    if (q.uuid === undefined) return;
    if (seenUuids.has(q.uuid)) errors.push({ pointer: `${pointerBase}/${i}/uuid`, message: "A question uuid may appear only once in the list." });
    seenUuids.add(q.uuid);
  });
  const taken = new Set(given);
  const out: NormalizedQuestion[] = inputs.map((q, i) => {
    const parsed = CONFIGURATION_SCHEMAS[q.type].safeParse(q.configuration);
    if (!parsed.success) errors.push(...issuesToFieldErrors(parsed.error.issues, [...pointerBase.split("/").slice(1), i, "configuration"]));
    let fieldKey = q.field_key;
    if (!fieldKey) {
      fieldKey = uniqueVariant(toFieldKey(q.prompt), taken, "_");
      taken.add(fieldKey);
    }
    const configuration = parsed.success ? (parsed.data as Record<string, unknown>) : {};
    const pointer = `${pointerBase}/${i}/translations`;
    const translations = checkQuestionTranslations(q.translations ?? {}, q.type, configuration, errors, pointer);
    return {
      uuid: q.uuid ?? null,
      position: i,
      order: q.order ?? i,
      prompt: q.prompt,
      type: q.type,
      field_key: fieldKey,
      required: q.required,
      configuration,
      condition: q.condition as Record<string, unknown>,
      enable_dynamic_probing: q.enable_dynamic_probing,
      fallback_to_text: q.fallback_to_text,
      evaluator_config: q.evaluator_config as Record<string, unknown>,
      translations,
    };
  });
  const orderOf = new Map(out.map((q) => [q.field_key, q.order]));
  out.forEach((q, i) => {
    const field = q.condition.field as string | undefined;
    // A hidden field's value is known from the start (issue 25): any question may test it.
    if (field === undefined || (hiddenFields.includes(field) && !orderOf.has(field))) return;
    const target = orderOf.get(field);
    if (target === undefined) {
      errors.push({ pointer: `${pointerBase}/${i}/condition/field`, message: `No question has the field_key "${field}".` });
    } else if (target >= q.order) {
      errors.push({ pointer: `${pointerBase}/${i}/condition/field`, message: "A condition may only test a question with a lower order." });
    }
  });
  if (errors.length) {
    throw new AppError("VALIDATION_ERROR", `The questions are not valid: ${errors[0]!.pointer} ${errors[0]!.message}`, { errors });
  }
  return out.sort((a, b) => a.order - b.order || a.position - b.position);
}
