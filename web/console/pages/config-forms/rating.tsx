/** Configuration of a `rating` question: the scale, and its highest value unless it is NPS (0–10). */
import type { Draft } from "../question-draft.ts";
import { Field } from "../question-fields.tsx";
import { configPaths, NumberField, type ConfigProps } from "./shared.tsx";

export function RatingConfig(p: ConfigProps) {
  const { id, cp } = configPaths(p);
  const { draft: d, errors, onChange } = p;
  return (
    <div class="grid-2">
      <Field id={id("scale")} label="Scale" pointer={`${cp}/scale_type`} errors={errors}>
        {(aria) => (
          <select {...aria} value={d.scaleType} onChange={(e) => onChange({ scaleType: e.currentTarget.value as Draft["scaleType"] })}>
            <option value="stars">Stars</option>
            <option value="emojis">Emojis</option>
            <option value="numbers">Numbers</option>
            <option value="nps">NPS (0–10)</option>
          </select>
        )}
      </Field>
      {d.scaleType !== "nps" && <NumberField {...p} name="max_value" label="Highest value" field="maxValue" min={2} max={10} />}
    </div>
  );
}
