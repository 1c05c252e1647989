/**
 * The "Dynamic probing" part of a builder question card (voice, voice-or-text and text
 * questions; DESIGN §6 `evaluator_config`): whether unclear answers get follow-up questions, the
 * clarity threshold, the most follow-ups and the custom fields to extract.
 */
import type { Draft, FieldErrors } from "./question-draft.ts";
import { Check, Field } from "./question-fields.tsx";

/** The probing fieldset of question `index`. */
export function ProbingFields({
  draft: d,
  index,
  errors,
  onChange,
}: {
  draft: Draft;
  index: number;
  errors: FieldErrors;
  onChange: (patch: Partial<Draft>) => void;
}) {
  const id = (s: string) => `${d.key}-${s}`;
  const qp = `/questions/${index}`;
  return (
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
              <input {...aria} type="number" min={0} max={1} step={0.05} value={d.clarity} onInput={(e) => onChange({ clarity: e.currentTarget.value })} />
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
  );
}
