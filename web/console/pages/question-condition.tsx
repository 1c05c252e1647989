/**
 * The "Condition" part of a builder question card (DESIGN §6 "Condition object"): show the
 * question always, or only if an earlier question or one of the link's hidden fields (issue 25)
 * compares to a value; the operators and the value input fit the tested question's type.
 */
import { HIDDEN_CONDITION, type Draft, type FieldErrors } from "./question-draft.ts";
import type { QuestionType } from "../question-types.ts";
import { ErrorsUnder, Field } from "./question-fields.tsx";

/** Operators that make sense for a tested question of this type. */
function operatorsFor(type: QuestionType | undefined): Draft["condOperator"][] {
  if (type === "rating" || type === "number") return ["equals", "less_than"];
  if (type === "yes_no" || type === "date") return ["equals"];
  return ["equals", "contains"];
}

const OPERATOR_LABELS: Record<Draft["condOperator"], string> = { equals: "equals", less_than: "is less than", contains: "contains" };

/** The condition's value input, fitting the tested question's type. */
function ConditionValue({
  d,
  tested,
  errors,
  pointer,
  onChange,
}: {
  d: Draft;
  tested: Draft;
  errors: FieldErrors;
  pointer: string;
  onChange: (patch: Partial<Draft>) => void;
}) {
  const id = `${d.key}-cond-value`;
  const choices: [string, string][] | null =
    tested.type === "multiple_choice"
      ? tested.options.map((o) => [o, o])
      : tested.type === "image_choice"
        ? tested.cards.map((c) => [c.id, c.label || c.id])
        : tested.type === "yes_no"
          ? [
              ["true", "Yes"],
              ["false", "No"],
            ]
          : null;
  return (
    <Field id={id} label="Value" pointer={pointer} errors={errors}>
      {(aria) =>
        choices && d.condOperator === "equals" ? (
          <select {...aria} value={d.condValue} onChange={(e) => onChange({ condValue: e.currentTarget.value })}>
            <option value="">Choose…</option>
            {choices.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        ) : (
          <input
            {...aria}
            type={(tested.type === "rating" || tested.type === "number" ? "number" : tested.type === "date" ? "date" : "text") as "text"}
            value={d.condValue}
            onInput={(e) => onChange({ condValue: e.currentTarget.value })}
          />
        )
      }
    </Field>
  );
}

/** The condition fieldset of question `index` (not shown for the first question). */
export function ConditionFields({
  draft: d,
  index,
  all,
  errors,
  onChange,
  hiddenFields,
}: {
  draft: Draft;
  index: number;
  all: Draft[];
  errors: FieldErrors;
  onChange: (patch: Partial<Draft>) => void;
  hiddenFields: string[];
}) {
  const id = (s: string) => `${d.key}-${s}`;
  const qp = `/questions/${index}`;
  const earlier = all.slice(0, index);
  // A hidden field is tested like a typed text answer (its value is the URL's text).
  const hiddenName = d.condOn.startsWith(HIDDEN_CONDITION) ? d.condOn.slice(HIDDEN_CONDITION.length) : null;
  const tested =
    hiddenName !== null ? (hiddenFields.includes(hiddenName) ? ({ ...d, type: "text" } as Draft) : undefined) : earlier.find((x) => x.key === d.condOn);
  const dangling = d.condOn !== "" && !tested;
  return (
    <fieldset class="sub">
      <legend>Condition</legend>
      <div class="grid-3">
        <Field id={id("cond-on")} label="Show this question" pointer={`${qp}/condition/field`} errors={errors}>
          {(aria) => (
            <select
              {...aria}
              value={tested ? d.condOn : ""}
              onChange={(e) => {
                const t = earlier.find((x) => x.key === e.currentTarget.value);
                onChange({ condOn: e.currentTarget.value, condValue: "", condOperator: operatorsFor(t?.type)[0]! });
              }}
            >
              <option value="">Always</option>
              {earlier.map((q, i) => (
                <option key={q.key} value={q.key}>
                  Only if question {i + 1} ({q.prompt.trim().slice(0, 40) || q.field_key})
                </option>
              ))}
              {hiddenFields.map((name) => (
                <option key={`${HIDDEN_CONDITION}${name}`} value={`${HIDDEN_CONDITION}${name}`}>
                  Only if hidden field {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {tested && (
          <Field id={id("cond-op")} label="Operator" pointer={`${qp}/condition/operator`} errors={errors}>
            {(aria) => (
              <select {...aria} value={d.condOperator} onChange={(e) => onChange({ condOperator: e.currentTarget.value as Draft["condOperator"] })}>
                {operatorsFor(tested.type).map((o) => (
                  <option key={o} value={o}>
                    {OPERATOR_LABELS[o]}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        {tested && <ConditionValue d={d} tested={tested} errors={errors} pointer={`${qp}/condition/value`} onChange={onChange} />}
      </div>
      {dangling && (
        <p class="field-error">
          {hiddenName !== null
            ? `The hidden field ${hiddenName} this condition tested is no longer declared; choose again.`
            : "The question this condition tested is no longer before this one; choose again."}
        </p>
      )}
      <ErrorsUnder errors={errors} pointer={`${qp}/condition`} />
    </fieldset>
  );
}
