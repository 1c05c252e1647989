/** Configuration of a `multiple_choice` question: the ordered options, "Allow several answers". */
import { Check, ErrorsUnder, Field, swap } from "../question-fields.tsx";
import { configPaths, type ConfigProps } from "./shared.tsx";

export function MultipleChoiceConfig(p: ConfigProps) {
  const { id, cp } = configPaths(p);
  const { draft: d, errors, onChange } = p;
  return (
    <fieldset>
      <legend>Options</legend>
      <ol class="option-list">
        {d.options.map((o, i) => (
          <li key={i}>
            <Field id={id(`option-${i}`)} label={`Option ${i + 1}`} pointer={`${cp}/options/${i}`} errors={errors}>
              {(aria) => <input {...aria} value={o} onInput={(e) => onChange({ options: d.options.map((x, j) => (j === i ? e.currentTarget.value : x)) })} />}
            </Field>
            <div class="actions mini">
              <button
                type="button"
                class="button-secondary"
                aria-label={`Move option ${i + 1} up`}
                disabled={i === 0}
                onClick={() => onChange({ options: swap(d.options, i, i - 1) })}
              >
                ↑
              </button>
              <button
                type="button"
                class="button-secondary"
                aria-label={`Move option ${i + 1} down`}
                disabled={i === d.options.length - 1}
                onClick={() => onChange({ options: swap(d.options, i, i + 1) })}
              >
                ↓
              </button>
              <button
                type="button"
                class="button-danger-quiet"
                aria-label={`Remove option ${i + 1}`}
                disabled={d.options.length <= 1}
                onClick={() => onChange({ options: d.options.filter((_, j) => j !== i) })}
              >
                ✕
              </button>
            </div>
          </li>
        ))}
      </ol>
      <ErrorsUnder errors={errors} pointer={`${cp}/options`} />
      <div class="actions">
        <button type="button" class="button-secondary" onClick={() => onChange({ options: [...d.options, ""] })}>
          Add option
        </button>
        <Check label="Allow several answers" checked={d.allowMultiple} onChange={(v) => onChange({ allowMultiple: v })} />
      </div>
    </fieldset>
  );
}
