/**
 * The builder's "Questions" section: one QuestionEditor card per draft, reordered by "Move up" /
 * "Move down" (the keyboard stays on the moved question's button) or drag and drop, folded to
 * their title lines except the ones being edited (and any whose fields the server refused),
 * and "Add question" (a text question, opened, its prompt focused).
 */
import { useRef, useState } from "preact/hooks";
import { blankDraft, uniqueKeys, type Draft, type FieldErrors } from "./question-draft.ts";
import { QuestionEditor } from "./question-editor.tsx";

type SetState<T> = (next: T | ((prev: T) => T)) => void;

/** `drafts` with the item at `from` moved to `to` (unchanged when `to` is out of range). */
export function moved<T>(items: T[], from: number, to: number): T[] {
  if (to < 0 || to >= items.length || from === to) return items;
  const out = [...items];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
}

/** True when the server's refusal names a field of question `i` (its card must be open to show it). */
export function hasErrorsAt(errors: FieldErrors, i: number): boolean {
  return [...errors.keys()].some((p) => p.startsWith(`/questions/${i}/`));
}

/** The server's messages at exactly `pointer`. */
function ErrorAt({ errors, pointer }: { errors: FieldErrors; pointer: string }) {
  const msgs = errors.get(pointer);
  return msgs ? <p class="field-error">{msgs.join(" ")}</p> : null;
}

/**
 * The section. `openKeys` (draft keys of the expanded cards) is the builder's, which keeps the
 * same positions open across a save; `onRemove` decides whether removing asks first.
 */
export function QuestionList(props: {
  drafts: Draft[];
  setDrafts: SetState<Draft[]>;
  errors: FieldErrors;
  hiddenFields: string[];
  openKeys: Set<string>;
  setOpenKeys: SetState<Set<string>>;
  onRemove: (d: Draft) => void;
}) {
  const { drafts, setDrafts, errors, openKeys, setOpenKeys } = props;
  // The dragged question: a ref, so dragover/drop see it before the next render.
  const dragKey = useRef<string | null>(null);
  const [overKey, setOverKey] = useState<string | null>(null);

  const update = (key: string, patch: Partial<Draft>) => setDrafts((ds) => uniqueKeys(ds.map((d) => (d.key === key ? { ...d, ...patch } : d))));
  const move = (from: number, to: number) => setDrafts((ds) => moved(ds, from, to));
  const moveBy = (key: string, index: number, delta: -1 | 1) => {
    move(index, index + delta);
    // Keep the keyboard where it was: on the same button of the moved question.
    requestAnimationFrame(() => {
      const own = document.getElementById(`${key}-${delta < 0 ? "up" : "down"}`) as HTMLButtonElement | null;
      (own && !own.disabled ? own : document.getElementById(`${key}-${delta < 0 ? "down" : "up"}`))?.focus();
    });
  };
  const addQuestion = () => {
    const d = blankDraft("text");
    setDrafts((ds) => uniqueKeys([...ds, d]));
    // The new question is the one being edited: the others fold away.
    setOpenKeys(new Set([d.key]));
    requestAnimationFrame(() => document.getElementById(`${d.key}-prompt`)?.focus());
  };
  const endDrag = () => {
    dragKey.current = null;
    setOverKey(null);
  };

  return (
    <div class="stack">
      <h2>Questions</h2>
      {drafts.length === 0 && <p class="muted">No questions yet. Add the first one.</p>}
      <ol class="q-list">
        {drafts.map((d, i) => (
          <QuestionEditor
            key={d.key}
            draft={d}
            index={i}
            all={drafts}
            hiddenFields={props.hiddenFields}
            errors={errors}
            onChange={(patch) => update(d.key, patch)}
            onMove={(delta) => moveBy(d.key, i, delta)}
            onRemove={() => props.onRemove(d)}
            open={openKeys.has(d.key) || hasErrorsAt(errors, i)}
            onToggle={() =>
              setOpenKeys((keys) => {
                const next = new Set(keys);
                if (!next.delete(d.key) || hasErrorsAt(errors, i)) next.add(d.key);
                return next;
              })
            }
            drag={{
              over: overKey === d.key && dragKey.current !== d.key,
              onDragStart: (e) => {
                dragKey.current = d.key;
                e.dataTransfer?.setData("text/plain", d.key);
                const card = document.getElementById(`${d.key}-card`);
                if (card) e.dataTransfer?.setDragImage(card, 20, 20);
              },
              onDragOver: (e) => {
                if (!dragKey.current) return;
                e.preventDefault();
                setOverKey(d.key);
              },
              onDrop: (e) => {
                e.preventDefault();
                const key = dragKey.current ?? e.dataTransfer?.getData("text/plain");
                const from = drafts.findIndex((x) => x.key === key);
                if (from >= 0) move(from, i);
                endDrag();
              },
              onDragEnd: endDrag,
            }}
          />
        ))}
      </ol>
      <ErrorAt errors={errors} pointer="/questions" />
      <div>
        <button type="button" class="button-secondary" onClick={addQuestion}>
          Add question
        </button>
      </div>
    </div>
  );
}
