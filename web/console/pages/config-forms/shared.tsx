/**
 * What every per-type configuration form of the link builder shares (config-forms/*.tsx): its
 * props, the DOM id and JSON pointer helpers, and the labelled number input most types use.
 */
import type { FieldErrors, Draft } from "../question-draft.ts";
import { Field } from "../question-fields.tsx";

/** Props of one type's configuration form: the draft, its place in the link, the server's errors. */
export type ConfigProps = {
  draft: Draft;
  index: number;
  errors: FieldErrors;
  onChange: (patch: Partial<Draft>) => void;
};

/**
 * `id(name)`: the DOM id of the draft's input `name` (stable across reordering);
 * `cp`: the JSON pointer of the question's `configuration` in the request body.
 */
export function configPaths(p: ConfigProps): { id: (name: string) => string; cp: string } {
  return { id: (name) => `${p.draft.key}-${name}`, cp: `/questions/${p.index}/configuration` };
}

/** Draft members held as number text. */
type NumberKey = "maxDuration" | "maxCharacters" | "min" | "max" | "step" | "maxValue" | "maxSizeMb";

/**
 * A number input for the configuration key `name` (its id and pointer), editing `field` of the
 * draft as text; `min`/`max` are the browser's hints, the server's bounds are the contract.
 */
export function NumberField(props: ConfigProps & { name: string; label: string; field: NumberKey; min?: number; max?: number }) {
  const { id, cp } = configPaths(props);
  const { draft: d, errors, onChange, name, label, field, min, max } = props;
  return (
    <Field id={id(name)} label={label} pointer={`${cp}/${name}`} errors={errors}>
      {(aria) => (
        <input {...aria} type="number" inputMode="decimal" value={d[field]} onInput={(e) => onChange({ [field]: e.currentTarget.value })} min={min} max={max} />
      )}
    </Field>
  );
}
