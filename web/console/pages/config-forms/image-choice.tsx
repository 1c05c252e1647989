/**
 * Configuration of an `image_choice` question: the ordered cards, each with its label, media URL
 * (typed, or set by uploading an image file), media type and id.
 */
import { addCard, type Card } from "../question-draft.ts";
import { ErrorsUnder, Field, ItemActions } from "../question-fields.tsx";
import { ImageUpload } from "../image-upload.tsx";
import { configPaths, type ConfigProps } from "./shared.tsx";

/** The fields of card `i`; `set` patches that card. */
function CardFields(p: ConfigProps & { card: Card; i: number; set: (patch: Partial<Card>) => void }) {
  const { id, cp } = configPaths(p);
  const { card: c, i, set, errors } = p;
  return (
    <div class="grid-2">
      <Field id={id(`card-${i}-label`)} label={`Card ${i + 1} label`} pointer={`${cp}/cards/${i}/label`} errors={errors}>
        {(aria) => <input {...aria} value={c.label} onInput={(e) => set({ label: e.currentTarget.value })} />}
      </Field>
      <Field id={id(`card-${i}-url`)} label={`Card ${i + 1} media URL`} pointer={`${cp}/cards/${i}/media_url`} errors={errors}>
        {(aria) => <input {...aria} type="url" value={c.media_url} placeholder="https://" onInput={(e) => set({ media_url: e.currentTarget.value })} />}
      </Field>
      <ImageUpload id={id(`card-${i}-file`)} label={`Card ${i + 1} image file`} onUploaded={(url) => set({ media_url: url, media_type: "image" })} />
      <Field id={id(`card-${i}-type`)} label={`Card ${i + 1} media type`} pointer={`${cp}/cards/${i}/media_type`} errors={errors}>
        {(aria) => (
          <select {...aria} value={c.media_type} onChange={(e) => set({ media_type: e.currentTarget.value as Card["media_type"] })}>
            <option value="image">Image</option>
            <option value="video">Video</option>
          </select>
        )}
      </Field>
      <Field id={id(`card-${i}-id`)} label={`Card ${i + 1} id`} pointer={`${cp}/cards/${i}/id`} errors={errors}>
        {(aria) => <input {...aria} class="mono" value={c.id} onInput={(e) => set({ id: e.currentTarget.value })} />}
      </Field>
    </div>
  );
}

export function ImageChoiceConfig(p: ConfigProps) {
  const { cp } = configPaths(p);
  const { draft: d, errors, onChange } = p;
  return (
    <fieldset>
      <legend>Cards</legend>
      <ol class="card-list">
        {d.cards.map((c, i) => (
          <li key={i} class="card-editor">
            <CardFields {...p} card={c} i={i} set={(patch) => onChange({ cards: d.cards.map((x, j) => (j === i ? { ...x, ...patch } : x)) })} />
            <ItemActions noun="card" items={d.cards} i={i} onItems={(cards) => onChange({ cards })} />
          </li>
        ))}
      </ol>
      <ErrorsUnder errors={errors} pointer={`${cp}/cards`} />
      <button type="button" class="button-secondary" onClick={() => onChange({ cards: addCard(d.cards) })}>
        Add card
      </button>
    </fieldset>
  );
}
