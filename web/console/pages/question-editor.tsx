/**
 * One question of the link builder: "Prompt", "Question type" (the 11 spec type names as option
 * values, DESIGN §10), "Required", the generated and editable `field_key`, the configuration
 * form of its type, a condition on an earlier question, dynamic probing with its evaluator
 * configuration, and "Move up"/"Move down"/"Remove" (drag and drop is the card's handle). A card
 * is collapsed to its title line unless it is being edited: the title is a button with
 * `aria-expanded` that shows or hides the fields (issue 26).
 * Server errors appear beside the field their JSON pointer names.
 */
import { PROBE_TYPES, errorsAt, type Draft, type FieldErrors } from "./question-draft.ts";
import { QUESTION_TYPES, TYPE_LABELS, type QuestionType } from "../question-types.ts";
import { Check, Field } from "./question-fields.tsx";
import { ConfigForm } from "./config-forms/index.tsx";
import { ConditionFields } from "./question-condition.tsx";
import { ProbingFields } from "./question-probing.tsx";

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

/** One question card of the builder. */
export function QuestionEditor({ draft: d, index, all, errors, onChange, onMove, onRemove, open, onToggle, hiddenFields = [], drag }: Props) {
  const id = (s: string) => `${d.key}-${s}`;
  const qp = `/questions/${index}`;
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
              {index > 0 && <ConditionFields draft={d} index={index} all={all} errors={errors} onChange={onChange} hiddenFields={hiddenFields} />}
              {PROBE_TYPES.includes(d.type) && <ProbingFields draft={d} index={index} errors={errors} onChange={onChange} />}
            </>
          )}
        </div>
      </fieldset>
    </li>
  );
}
