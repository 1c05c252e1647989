/**
 * @module web/intake/conditions
 * Question visibility (spec "Condition object", DESIGN §9). A question whose condition is `{}`
 * is always shown; otherwise it is shown when the earlier question named by `field` holds a
 * value that passes `operator`. The rule is the server's own (src/shared/conditions.ts,
 * bundled into the page), which evaluates it again on submit:
 * - `less_than`: the answer as a number is below the numeric `value`;
 * - `equals`: the answer and `value` are equal as strings (`3` equals `"3"`, `true` equals
 *   `"true"`); a list answer matches only when it holds exactly that one item;
 * - `contains`: the answer's text contains `value`, case-insensitively (a list: any item).
 * A question whose condition names an unanswered or hidden question stays hidden. A condition may
 * also name a hidden field (issue 25): it tests the value the page's URL gave, absent = unanswered.
 */
import { conditionHolds } from "../../src/shared/conditions.ts";
import type { Condition, PublicQuestion } from "./types.ts";

/** True when the condition has the fields needed to test anything. */
export function hasCondition(condition: Condition | null | undefined): condition is Required<Condition> {
  return Boolean(condition && condition.field && condition.operator);
}

/**
 * The questions shown for the current answers, in order. Visibility cascades: a question
 * testing a hidden question is hidden too (the server only counts visible answers).
 * @param valueOfQuestion the value of a question as conditions see it (null when unanswered)
 * @param hidden the hidden-field values by name (web/intake/hidden.ts)
 */
export function visibleQuestions(
  questions: readonly PublicQuestion[],
  valueOfQuestion: (q: PublicQuestion) => unknown,
  hidden: ReadonlyMap<string, string> = new Map(),
): PublicQuestion[] {
  const keys = new Set(questions.map((q) => q.field_key));
  const shownKeys = new Map<string, PublicQuestion>();
  const shown: PublicQuestion[] = [];
  for (const q of questions) {
    const condition = q.condition;
    let isShown = true;
    if (hasCondition(condition) && !keys.has(condition.field)) {
      isShown = conditionHolds(condition, hidden.get(condition.field));
    } else if (hasCondition(condition)) {
      const tested = shownKeys.get(condition.field);
      isShown = tested !== undefined && conditionHolds(condition, valueOfQuestion(tested));
    }
    if (isShown) {
      shown.push(q);
      shownKeys.set(q.field_key, q);
    }
  }
  return shown;
}
