/** Configuration of a `file_upload` question: allowed MIME types (comma-separated), largest file. */
import { Field } from "../question-fields.tsx";
import { configPaths, NumberField, type ConfigProps } from "./shared.tsx";

export function FileUploadConfig(p: ConfigProps) {
  const { id, cp } = configPaths(p);
  const { draft: d, errors, onChange } = p;
  return (
    <div class="grid-2">
      <Field
        id={id("types")}
        label="Allowed file types"
        pointer={`${cp}/allowed_types`}
        errors={errors}
        deep
        hint="Comma-separated, e.g. image/png, application/pdf. Empty: any."
      >
        {(aria) => <input {...aria} value={d.allowedTypes} onInput={(e) => onChange({ allowedTypes: e.currentTarget.value })} />}
      </Field>
      <NumberField {...p} name="max_size_mb" label="Largest file (MB)" field="maxSizeMb" min={1} max={100} />
    </div>
  );
}
