/**
 * @module shared/conditions
 * Conditional visibility (spec: Condition object; DESIGN §6, §9): a question shows when its
 * condition holds for the earlier answer it tests. One rule for the server (intake submit) and
 * the intake page (web/intake/conditions.ts bundles this module): neutral code, no imports.
 */

export type ConditionLike = { show_if?: string; field?: string; operator?: string; value?: unknown };

/**
 * True when a question with `condition` is visible given the answers so far (by field_key).
 * `{}` is always visible; a condition on an unanswered field hides the question.
 */
export function isVisible(condition: ConditionLike, answers: ReadonlyMap<string, unknown>): boolean {
  if (!condition.field || !condition.operator) return true;
  return conditionHolds(condition, answers.get(condition.field));
}

/**
 * The rule itself, shared by the server and the intake page (which imports this module):
 * `less_than` compares numbers, `equals` compares as strings (a list matches when it holds
 * exactly that one item), `contains` is a case-insensitive substring (a list: any item).
 * @param actual the tested question's value; null or undefined never satisfies a condition
 */
export function conditionHolds(condition: ConditionLike, actual: unknown): boolean {
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
      const items: unknown[] = Array.isArray(actual) ? actual : [actual];
      return items.some((v) => String(v).toLowerCase().includes(needle));
    }
    default:
      return true;
  }
}
