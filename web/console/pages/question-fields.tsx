/**
 * The fields of a builder question card (question-editor.tsx): the labelled input with the
 * server's messages beside it, the check box, and the configuration form of each question type
 * (options, scales, number bounds, image cards with their upload, file types).
 */
import type { ComponentChildren } from "preact";
import { errorsAt, type Draft, type FieldErrors } from "./question-draft.ts";
import { ImageUpload } from "./image-upload.tsx";

/** A labelled input with the server's messages for `pointer` beside it. */
export function Field(props: {
  id: string;
  label: string;
  pointer: string;
  errors: FieldErrors;
  hint?: string;
  deep?: boolean;
  children: (aria: Record<string, unknown>) => ComponentChildren;
}) {
  const msgs = errorsAt(props.errors, props.pointer, props.deep);
  const errId = `${props.id}-error`;
  const hintId = `${props.id}-hint`;
  const describedBy = [props.hint ? hintId : "", msgs.length ? errId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children({ id: props.id, "aria-invalid": msgs.length ? "true" : undefined, "aria-describedby": describedBy })}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {msgs.length > 0 && (
        <p class="field-error" id={errId}>
          {msgs.join(" ")}
        </p>
      )}
    </div>
  );
}

export function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      {label}
    </label>
  );
}

export function ConfigForm({
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
  const cp = `/questions/${index}/configuration`;
  const numberField = (name: string, label: string, value: string, key: keyof Draft, extra: Record<string, unknown> = {}) => (
    <Field id={id(name)} label={label} pointer={`${cp}/${name}`} errors={errors}>
      {(aria) => (
        <input
          {...aria}
          type="number"
          inputMode="decimal"
          value={value}
          onInput={(e) => onChange({ [key]: e.currentTarget.value } as Partial<Draft>)}
          {...extra}
        />
      )}
    </Field>
  );
  switch (d.type) {
    case "voice":
      return (
        <div class="grid-2">
          {numberField("max_duration", "Longest recording (seconds)", d.maxDuration, "maxDuration", { min: 1, max: 600 })}
          <Check label="AI evaluation (transcript insights)" checked={d.aiEvaluation} onChange={(v) => onChange({ aiEvaluation: v })} />
        </div>
      );
    case "voice_text_fallback":
      return (
        <div class="grid-2">
          {numberField("max_duration", "Longest recording (seconds)", d.maxDuration, "maxDuration", { min: 1, max: 600 })}
          {numberField("max_characters", "Most characters typed", d.maxCharacters, "maxCharacters", { min: 1 })}
        </div>
      );
    case "multiple_choice":
      return (
        <fieldset>
          <legend>Options</legend>
          <ol class="option-list">
            {d.options.map((o, i) => (
              <li key={i}>
                <Field id={id(`option-${i}`)} label={`Option ${i + 1}`} pointer={`${cp}/options/${i}`} errors={errors}>
                  {(aria) => (
                    <input {...aria} value={o} onInput={(e) => onChange({ options: d.options.map((x, j) => (j === i ? e.currentTarget.value : x)) })} />
                  )}
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
    case "number":
      return (
        <div class="grid-3">
          {numberField("min", "Minimum", d.min, "min")}
          {numberField("max", "Maximum", d.max, "max")}
          {numberField("step", "Step", d.step, "step")}
        </div>
      );
    case "rating":
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
          {d.scaleType !== "nps" && numberField("max_value", "Highest value", d.maxValue, "maxValue", { min: 2, max: 10 })}
        </div>
      );
    case "image_choice":
      return (
        <fieldset>
          <legend>Cards</legend>
          <ol class="card-list">
            {d.cards.map((c, i) => {
              const set = (patch: Partial<typeof c>) => onChange({ cards: d.cards.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
              return (
                <li key={i} class="card-editor">
                  <div class="grid-2">
                    <Field id={id(`card-${i}-label`)} label={`Card ${i + 1} label`} pointer={`${cp}/cards/${i}/label`} errors={errors}>
                      {(aria) => <input {...aria} value={c.label} onInput={(e) => set({ label: e.currentTarget.value })} />}
                    </Field>
                    <Field id={id(`card-${i}-url`)} label={`Card ${i + 1} media URL`} pointer={`${cp}/cards/${i}/media_url`} errors={errors}>
                      {(aria) => (
                        <input {...aria} type="url" value={c.media_url} placeholder="https://" onInput={(e) => set({ media_url: e.currentTarget.value })} />
                      )}
                    </Field>
                    <ImageUpload
                      id={id(`card-${i}-file`)}
                      label={`Card ${i + 1} image file`}
                      onUploaded={(url) => set({ media_url: url, media_type: "image" })}
                    />
                    <Field id={id(`card-${i}-type`)} label={`Card ${i + 1} media type`} pointer={`${cp}/cards/${i}/media_type`} errors={errors}>
                      {(aria) => (
                        <select {...aria} value={c.media_type} onChange={(e) => set({ media_type: e.currentTarget.value as "image" | "video" })}>
                          <option value="image">Image</option>
                          <option value="video">Video</option>
                        </select>
                      )}
                    </Field>
                    <Field id={id(`card-${i}-id`)} label={`Card ${i + 1} id`} pointer={`${cp}/cards/${i}/id`} errors={errors}>
                      {(aria) => <input {...aria} class="mono" value={c.id} onInput={(e) => set({ id: e.currentTarget.value })} />}
                    </Field>
                  </div>
                  <div class="actions mini">
                    <button
                      type="button"
                      class="button-secondary"
                      aria-label={`Move card ${i + 1} up`}
                      disabled={i === 0}
                      onClick={() => onChange({ cards: swap(d.cards, i, i - 1) })}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      class="button-secondary"
                      aria-label={`Move card ${i + 1} down`}
                      disabled={i === d.cards.length - 1}
                      onClick={() => onChange({ cards: swap(d.cards, i, i + 1) })}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      class="button-danger-quiet"
                      aria-label={`Remove card ${i + 1}`}
                      disabled={d.cards.length <= 1}
                      onClick={() => onChange({ cards: d.cards.filter((_, j) => j !== i) })}
                    >
                      ✕
                    </button>
                  </div>
                </li>
              );
            })}
          </ol>
          <ErrorsUnder errors={errors} pointer={`${cp}/cards`} />
          <button
            type="button"
            class="button-secondary"
            onClick={() => {
              let n = d.cards.length + 1;
              while (d.cards.some((c) => c.id === `card_${n}`)) n++;
              onChange({ cards: [...d.cards, { id: `card_${n}`, label: "", media_url: "", media_type: "image" }] });
            }}
          >
            Add card
          </button>
        </fieldset>
      );
    case "file_upload":
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
          {numberField("max_size_mb", "Largest file (MB)", d.maxSizeMb, "maxSizeMb", { min: 1, max: 100 })}
        </div>
      );
    default:
      return null;
  }
}

/** Messages at exactly `pointer` (a list's own errors, e.g. "Options must be unique."). */
export function ErrorsUnder({ errors, pointer }: { errors: FieldErrors; pointer: string }) {
  const msgs = errorsAt(errors, pointer);
  return msgs.length ? <p class="field-error">{msgs.join(" ")}</p> : null;
}

export function swap<T>(items: T[], i: number, j: number): T[] {
  const out = [...items];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}
