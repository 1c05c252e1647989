/**
 * @module web/console/pages/theme-dialogs
 * The Themes view's forms, each a modal `<dialog>` (DESIGN §12): "New theme" (`POST
 * links/{uuid}/themes/`), rename ("Theme name", "Description", "Keep this name when themes are
 * rebuilt" → `PATCH …/themes/{uuid}/` with `pinned`), merge ("Merge into" → `POST
 * …/themes/{uuid}/merge/`). Each reports the API's error inside the dialog and calls `onDone`
 * after a successful write.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, apiPath } from "../api.ts";
import { ErrorNote, useAction } from "../components.tsx";
import type { Question } from "../../../src/modules/links/model.ts";
import type { Theme } from "../themes.ts";

/** A modal form: focus moves into it, Escape or "Cancel" closes it, focus returns to the opener. */
function FormDialog(props: {
  open: boolean;
  title: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog theme-dialog" aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), props.onCancel())}>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          props.onSubmit();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <div class="actions">
          <button type="submit" disabled={props.busy}>
            {props.submitLabel}
          </button>
          <button type="button" class="button-secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

type Done = (message: string) => void;

/** "New theme": an operator's theme for one open question of the link. */
export function NewThemeDialog(props: { open: boolean; linkUuid: string; questions: Question[]; question: string | null; onDone: Done; onCancel: () => void }) {
  const action = useAction();
  const [question, setQuestion] = useState(props.question ?? props.questions[0]?.uuid ?? "");
  const [label, setLabel] = useState("");
  const [description, setDescription] = useState("");
  useEffect(() => {
    if (!props.open) return;
    setQuestion(props.question ?? props.questions[0]?.uuid ?? "");
    setLabel("");
    setDescription("");
  }, [props.open]);
  const submit = () =>
    action.run("", async () => {
      await api("POST", apiPath`links/${props.linkUuid}/themes/`, {
        question_uuid: question,
        label: label.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      props.onDone(`Theme “${label.trim()}” created.`);
    });
  return (
    <FormDialog open={props.open} title="New theme" submitLabel="Create theme" busy={action.busy} onSubmit={submit} onCancel={props.onCancel}>
      {props.questions.length > 1 && (
        <div class="field">
          <label for="nt-question">Question</label>
          <select id="nt-question" value={question} onChange={(e) => setQuestion(e.currentTarget.value)}>
            {props.questions.map((q) => (
              <option key={q.uuid} value={q.uuid}>
                {q.prompt}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="field">
        <label for="nt-label">Theme name</label>
        <input id="nt-label" required maxLength={120} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="nt-description">Description</label>
        <textarea id="nt-description" rows={3} maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <p class="muted small">Answers that fit this theme better than any other go to it from now on and at the next rebuild.</p>
      <ErrorNote error={action.error} />
    </FormDialog>
  );
}

/** Rename a theme (and pin its name so rebuilds keep it). */
export function RenameThemeDialog(props: { theme: Theme | null; linkUuid: string; onDone: Done; onCancel: () => void }) {
  const action = useAction();
  const t = props.theme;
  const [label, setLabel] = useState("");
  const [description, setDescription] = useState("");
  const [pinned, setPinned] = useState(true);
  useEffect(() => {
    if (!t) return;
    setLabel(t.label);
    setDescription(t.description ?? "");
    setPinned(true);
  }, [t?.uuid]);
  const submit = () =>
    action.run("", async () => {
      await api("PATCH", apiPath`links/${props.linkUuid}/themes/${t!.uuid}/`, { label: label.trim(), description: description.trim() || null, pinned });
      props.onDone(`Theme renamed to “${label.trim()}”.`);
    });
  return (
    <FormDialog open={t !== null} title="Rename theme" submitLabel="Save name" busy={action.busy} onSubmit={submit} onCancel={props.onCancel}>
      <div class="field">
        <label for="rt-label">Theme name</label>
        <input id="rt-label" required maxLength={120} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="rt-description">Description</label>
        <textarea id="rt-description" rows={3} maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <label class="check">
        <input type="checkbox" checked={pinned} onChange={(e) => setPinned(e.currentTarget.checked)} />
        Keep this name when themes are rebuilt
      </label>
      <ErrorNote error={action.error} />
    </FormDialog>
  );
}

/** Merge a theme into another theme of the same question. */
export function MergeThemeDialog(props: { theme: Theme | null; linkUuid: string; others: Theme[]; onDone: Done; onCancel: () => void }) {
  const action = useAction();
  const t = props.theme;
  const targets = t ? props.others.filter((o) => o.uuid !== t.uuid && o.question_uuid === t.question_uuid) : [];
  const [into, setInto] = useState("");
  useEffect(() => setInto(targets[0]?.uuid ?? ""), [t?.uuid]);
  const submit = () =>
    action.run("", async () => {
      const survivor = await api<Theme>("POST", apiPath`links/${props.linkUuid}/themes/${t!.uuid}/merge/`, { into });
      props.onDone(`“${t!.label}” merged into “${survivor.label}”.`);
    });
  return (
    <FormDialog open={t !== null} title="Merge theme" submitLabel="Merge themes" busy={action.busy || !into} onSubmit={submit} onCancel={props.onCancel}>
      {targets.length === 0 ? (
        <p class="muted">This question has no other theme to merge “{t?.label}” into.</p>
      ) : (
        <>
          <p class="muted">The answers of “{t?.label}” move to the theme you pick, which keeps its name.</p>
          <div class="field">
            <label for="mt-into">Merge into</label>
            <select id="mt-into" value={into} onChange={(e) => setInto(e.currentTarget.value)}>
              {targets.map((o) => (
                <option key={o.uuid} value={o.uuid}>
                  {o.label} ({o.size})
                </option>
              ))}
            </select>
          </div>
        </>
      )}
      <ErrorNote error={action.error} />
    </FormDialog>
  );
}
