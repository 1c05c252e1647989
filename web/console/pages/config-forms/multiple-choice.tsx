/** Configuration of a `multiple_choice` question: the ordered options, "Allow several answers". */
import { Check, ErrorsUnder, Field, ItemActions } from "../question-fields.tsx";
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
            <ItemActions noun="option" items={d.options} i={i} onItems={(options) => onChange({ options })} />
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
