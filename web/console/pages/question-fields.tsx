/**
 * The fields of a builder question card (question-editor.tsx and the per-type forms of
 * config-forms/): the labelled input with the server's messages beside it, the check box, a
 * list's own errors, and swapping two list items.
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
