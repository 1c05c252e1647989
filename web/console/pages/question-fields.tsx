/**
 * The fields of a builder question card (question-editor.tsx and the per-type forms of
 * config-forms/): the labelled input with the server's messages beside it, the check box, a
 * list's own errors, and reordering and removing list items.
 */
import type { ComponentChildren } from "preact";
import { errorsAt, type FieldErrors } from "./question-draft.ts";

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

/** A labelled check box. */
export function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      {label}
    </label>
  );
}

/** Messages at exactly `pointer` (a list's own errors, e.g. "Options must be unique."). */
export function ErrorsUnder({ errors, pointer }: { errors: FieldErrors; pointer: string }) {
  const msgs = errorsAt(errors, pointer);
  return msgs.length ? <p class="field-error">{msgs.join(" ")}</p> : null;
}

/** A copy of `items` with the items at `i` and `j` exchanged (reordering options and cards). */
export function swap<T>(items: T[], i: number, j: number): T[] {
  const out = [...items];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

/**
 * The "↑", "↓" and "✕" buttons of item `i` of an ordered list (options, cards), named
 * "Move {noun} {i + 1} up", "… down" and "Remove {noun} {i + 1}"; `onItems` gets the list
 * reordered or without the item. The last item left cannot be removed.
 */
export function ItemActions<T>({ noun, items, i, onItems }: { noun: string; items: T[]; i: number; onItems: (items: T[]) => void }) {
  return (
    <div class="actions mini">
      <button type="button" class="button-secondary" aria-label={`Move ${noun} ${i + 1} up`} disabled={i === 0} onClick={() => onItems(swap(items, i, i - 1))}>
        ↑
      </button>
      <button
        type="button"
        class="button-secondary"
        aria-label={`Move ${noun} ${i + 1} down`}
        disabled={i === items.length - 1}
        onClick={() => onItems(swap(items, i, i + 1))}
      >
        ↓
      </button>
      <button
        type="button"
        class="button-danger-quiet"
        aria-label={`Remove ${noun} ${i + 1}`}
        disabled={items.length <= 1}
        onClick={() => onItems(items.filter((_, j) => j !== i))}
      >
        ✕
      </button>
    </div>
  );
}
