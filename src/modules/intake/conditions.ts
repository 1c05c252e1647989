/**
 * @module intake/conditions
 * Conditional visibility (spec: Condition object; DESIGN §6, §9): a question shows when its
 * condition holds for the earlier answer it tests. The page evaluates the same rules.
 */

export type ConditionLike = { show_if?: string; field?: string; operator?: string; value?: unknown };

/**
 * True when a question with `condition` is visible given the answers so far (by field_key).
 * `{}` is always visible; a condition on an unanswered field hides the question.
 */
export function isVisible(condition: ConditionLike, answers: ReadonlyMap<string, unknown>): boolean {
  if (!condition.field || !condition.operator) return true;
  const actual = answers.get(condition.field);
  if (actual === undefined || actual === null) return false;
  const expected = condition.value;
  switch (condition.operator) {
    case "less_than": {
      const n = typeof actual === "number" ? actual : Number(actual);
      return Number.isFinite(n) && typeof expected === "number" && n < expected;
    }
    case "equals":
      if (Array.isArray(actual)) return actual.length === 1 && String(actual[0]) === String(expected);
      return String(actual) === String(expected);
    case "contains": {
      const needle = String(expected).toLowerCase();
      if (Array.isArray(actual)) return actual.some((v) => String(v).toLowerCase().includes(needle));
      return String(actual).toLowerCase().includes(needle);
    }
    default:
      return true;
  }
}
