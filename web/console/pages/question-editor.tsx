/**
 * One question of the link builder: "Prompt", "Question type" (the 11 spec type names as option
 * values, DESIGN §10), "Required", the generated and editable `field_key`, the configuration
 * form of its type, a condition on an earlier question, dynamic probing with its evaluator
 * configuration, and "Move up"/"Move down"/"Remove" (drag and drop is the card's handle). A card
 * is collapsed to its title line unless it is being edited: the title is a button with
 * `aria-expanded` that shows or hides the fields (issue 26).
 * Server errors appear beside the field their JSON pointer names.
 */
import { HIDDEN_CONDITION, PROBE_TYPES, errorsAt, type Draft, type FieldErrors } from "./question-draft.ts";
import { QUESTION_TYPES, TYPE_LABELS, type QuestionType } from "../types.ts";
import { Check, ConfigForm, ErrorsUnder, Field } from "./question-fields.tsx";

export { Field };

type Props = {
  draft: Draft;
  index: number;
  all: Draft[];
  errors: FieldErrors;
  onChange: (patch: Partial<Draft>) => void;
  onMove: (delta: -1 | 1) => void;
  onRemove: () => void;
  /** Whether the card shows its fields; collapsed, it shows its title, type and field key. */
  open: boolean;
  onToggle: () => void;
  /** The link's hidden fields, which a condition may test too (issue 25). */
  hiddenFields?: string[];
  drag: { onDragStart: (e: DragEvent) => void; onDragOver: (e: DragEvent) => void; onDrop: (e: DragEvent) => void; onDragEnd: () => void; over: boolean };
};

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
  onChange: Props["onChange"];
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

/** One question card of the builder. */
export function QuestionEditor({ draft: d, index, all, errors, onChange, onMove, onRemove, open, onToggle, hiddenFields = [], drag }: Props) {
  const id = (s: string) => `${d.key}-${s}`;
  const qp = `/questions/${index}`;
  const earlier = all.slice(0, index);
  // A hidden field is tested like a typed text answer (its value is the URL's text).
  const hiddenName = d.condOn.startsWith(HIDDEN_CONDITION) ? d.condOn.slice(HIDDEN_CONDITION.length) : null;
  const tested =
    hiddenName !== null ? (hiddenFields.includes(hiddenName) ? ({ ...d, type: "text" } as Draft) : undefined) : earlier.find((x) => x.key === d.condOn);
  const dangling = d.condOn !== "" && !tested;
  const title = d.prompt.trim() || "New question";
  return (
    <li class={`q-card card${drag.over ? " drag-over" : ""}`} id={id("card")} onDragOver={drag.onDragOver} onDrop={drag.onDrop}>
      <fieldset class="q-fieldset">
        <legend>
          Question {index + 1}
          <span class="visually-hidden">: {title}</span>
        </legend>
        <div class="q-head">
          <span class="drag-handle" draggable onDragStart={drag.onDragStart} onDragEnd={drag.onDragEnd} title="Drag to reorder" aria-hidden="true">
            ⠿
          </span>
          <button type="button" class="q-toggle" id={id("toggle")} aria-expanded={open} aria-controls={id("body")} onClick={onToggle}>
            <span class="q-toggle-icon" aria-hidden="true">
              {open ? "▾" : "▸"}
            </span>
            <span class="q-title">{title}</span>
            <span class="q-meta">
              {TYPE_LABELS[d.type]} · <span class="mono">{d.field_key}</span>
              {d.required ? " · required" : ""}
            </span>
          </button>
          <div class="actions mini">
            <button
              type="button"
              class="button-secondary"
              id={id("up")}
              aria-label={`Move up: question ${index + 1}`}
              disabled={index === 0}
              onClick={() => onMove(-1)}
            >
              Move up
            </button>
            <button
              type="button"
              class="button-secondary"
              id={id("down")}
              aria-label={`Move down: question ${index + 1}`}
              disabled={index === all.length - 1}
              onClick={() => onMove(1)}
            >
              Move down
            </button>
            <button type="button" class="button-danger-quiet" aria-label={`Remove: question ${index + 1}`} onClick={onRemove}>
              Remove
            </button>
          </div>
        </div>
        {d.answered > 0 && <p class="hint">{d.answered === 1 ? "1 response answered" : `${d.answered} responses answered`} this question.</p>}
        <div id={id("body")} class="q-body" hidden={!open}>
          {open && (
            <>
              <Field id={id("prompt")} label="Prompt" pointer={`${qp}/prompt`} errors={errors}>
                {(aria) => <textarea {...aria} rows={2} value={d.prompt} onInput={(e) => onChange({ prompt: e.currentTarget.value })} />}
              </Field>
              <div class="grid-2">
                <Field id={id("qtype")} label="Question type" pointer={`${qp}/type`} errors={errors}>
                  {(aria) => (
                    <select {...aria} value={d.type} onChange={(e) => onChange({ type: e.currentTarget.value as QuestionType })}>
                      {QUESTION_TYPES.map((t) => (
                        <option key={t} value={t}>
                          {TYPE_LABELS[t]}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
                <Field
                  id={id("field-key")}
                  label="Field key"
                  pointer={`${qp}/field_key`}
                  errors={errors}
                  hint={d.keyEdited ? undefined : "Made from the prompt; edit to choose your own."}
                >
                  {(aria) => (
                    <input {...aria} class="mono" value={d.field_key} onInput={(e) => onChange({ field_key: e.currentTarget.value, keyEdited: true })} />
                  )}
                </Field>
              </div>
              <Check label="Required" checked={d.required} onChange={(v) => onChange({ required: v })} />
              <ConfigForm draft={d} index={index} errors={errors} onChange={onChange} />
              {errorsAt(errors, `${qp}/configuration`).length > 0 && <p class="field-error">{errorsAt(errors, `${qp}/configuration`).join(" ")}</p>}
              {index > 0 && (
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
              )}
              {PROBE_TYPES.includes(d.type) && (
                <fieldset class="sub">
                  <legend>Dynamic probing</legend>
                  <Check label="Ask follow-up questions when an answer is unclear" checked={d.probing} onChange={(v) => onChange({ probing: v })} />
                  {d.probing && (
                    <div class="grid-3">
                      <Field
                        id={id("clarity")}
                        label="Clarity threshold"
                        pointer={`${qp}/evaluator_config/clarity_threshold`}
                        errors={errors}
                        hint="0 to 1; below it, a follow-up is asked."
                      >
                        {(aria) => (
                          <input
                            {...aria}
                            type="number"
                            min={0}
                            max={1}
                            step={0.05}
                            value={d.clarity}
                            onInput={(e) => onChange({ clarity: e.currentTarget.value })}
                          />
                        )}
                      </Field>
                      <Field id={id("followups")} label="Most follow-ups" pointer={`${qp}/evaluator_config/max_follow_ups`} errors={errors}>
                        {(aria) => (
                          <input
                            {...aria}
                            type="number"
                            min={0}
                            max={5}
                            step={1}
                            value={d.maxFollowUps}
                            onInput={(e) => onChange({ maxFollowUps: e.currentTarget.value })}
                          />
                        )}
                      </Field>
                      <Field
                        id={id("custom")}
                        label="Custom fields"
                        pointer={`${qp}/evaluator_config/custom_fields`}
                        errors={errors}
                        deep
                        hint="snake_case names, comma-separated."
                      >
                        {(aria) => <input {...aria} class="mono" value={d.customFields} onInput={(e) => onChange({ customFields: e.currentTarget.value })} />}
                      </Field>
                    </div>
                  )}
                </fieldset>
              )}
            </>
          )}
        </div>
      </fieldset>
    </li>
  );
}
