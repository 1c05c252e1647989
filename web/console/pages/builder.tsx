/**
 * The link builder (`/console/links/new/` and `/console/links/<uuid>/`; DESIGN §6, §10):
 * "Name", "Slug", the link settings, the questions ("Add question", each a QuestionEditor,
 * reordered by "Move up"/"Move down" or drag and drop) and "Save link". Editing sends every
 * question with its uuid (`PATCH links/{uuid}/` keeps them and their answers); removing a
 * question that has answers asks first. A saved link shows its "Public URL" and "Preview"
 * (the intake page with `?preview=1`, which records nothing).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, apiPath, type ApiError } from "../api.ts";
import { ConfirmDialog, CopyButton, ErrorNote, Loading, Notice, toApiError } from "../components.tsx";
import { can } from "../state.ts";
import type { Link, LinkStats } from "../types.ts";
import { ClosingFields, EMPTY_CLOSING, closingFormOf, closingPayloadOf, type ClosingForm } from "./link-closing.tsx";
import { EMPTY_KIOSK, KioskFields, kioskFormOf, kioskPayloadOf, type KioskForm } from "./link-kiosk.tsx";
import { Field, QuestionEditor } from "./question-editor.tsx";
import { EmbedCard } from "./embed-card.tsx";
import { AlertsCard } from "./alerts-card.tsx";
import { blankDraft, draftOf, fieldErrorsOf, newKey, payloadOf, uniqueKeys, type Draft, type FieldErrors } from "./question-draft.ts";

type LinkForm = {
  name: string;
  slug: string;
  description: string;
  thankYou: string;
  redirectUrl: string;
  tts: boolean;
  live: boolean;
  /** settings.access === "invitation" (DESIGN §13). */
  invitationOnly: boolean;
  status: Link["status"];
  /** Hidden fields as typed: names separated by commas or spaces (issue 25). */
  hidden: string;
};

const EMPTY: LinkForm = {
  name: "",
  slug: "",
  description: "",
  thankYou: "",
  redirectUrl: "",
  tts: false,
  live: false,
  invitationOnly: false,
  status: "active",
  hidden: "",
};

/** The names of the "Hidden fields" input, in order (the API checks them). */
const hiddenNames = (typed: string): string[] => typed.split(/[\s,]+/).filter(Boolean);

/** `/console/links/new/` and `/console/links/<uuid>/`. */
export function BuilderPage() {
  const { params } = useRoute();
  const { route, query } = useLocation();
  const uuid = params.uuid && params.uuid !== "new" ? params.uuid : null;
  const [link, setLink] = useState<Link | null>(null);
  const [form, setForm] = useState<LinkForm>(EMPTY);
  const [drafts, setDrafts] = useState<Draft[]>([]);
  // `settings.redact_pii` (issue 25), kept apart from LinkForm: masks PII before it is stored.
  const [redact, setRedact] = useState(false);
  // `close_at`, `response_limit`, `consent` (issue 25): their own small form (link-closing.tsx).
  const [closing, setClosing] = useState<ClosingForm>(EMPTY_CLOSING);
  const [kiosk, setKiosk] = useState<KioskForm>(EMPTY_KIOSK); // issue 29 (link-kiosk.tsx)
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  // A new link arrives here from "Save link" on /console/links/new/ with ?saved=1.
  const [message, setMessage] = useState(query.saved ? "Link saved." : "");
  const [removing, setRemoving] = useState<Draft | null>(null);
  // The dragged question: a ref, so dragover/drop see it before the next render.
  const dragKey = useRef<string | null>(null);
  const [overKey, setOverKey] = useState<string | null>(null);
  // Expanded question cards (by draft key); the others show their title line only. A save keeps
  // the same positions open (the reloaded drafts get new keys).
  const [openKeys, setOpenKeys] = useState<Set<string>>(new Set());
  const openIndexes = useRef<number[]>([]);
  const errors: FieldErrors = fieldErrorsOf(saveError);

  const load = async (id: string, note = "") => {
    try {
      const l = await api<Link>("GET", apiPath`links/${id}/`);
      const stats = await api<LinkStats>("GET", apiPath`links/${id}/stats/`).catch(() => null);
      const answered = new Map((stats?.questions ?? []).map((q) => [q.question_uuid, q.answered]));
      const keyOf = new Map(l.questions.map((q) => [q.field_key, newKey()]));
      setLink(l);
      setForm({
        name: l.name,
        slug: l.slug,
        description: l.settings.description ?? "",
        thankYou: l.settings.thankYouMessage ?? "",
        redirectUrl: l.settings.redirectUrl ?? "",
        tts: l.settings.tts_enabled,
        live: l.settings.live_transcription,
        invitationOnly: l.settings.access === "invitation",
        status: l.status,
        hidden: (l.settings.hidden_fields ?? []).join(", "),
      });
      setRedact(l.settings.redact_pii === true);
      setClosing(closingFormOf(l.settings));
      setKiosk(kioskFormOf(l.settings));
      const loaded = l.questions.map((q) => draftOf(q, keyOf, answered.get(q.uuid) ?? 0));
      setDrafts(loaded);
      setOpenKeys(new Set(openIndexes.current.map((i) => loaded[i]?.key).filter((k): k is string => !!k)));
      openIndexes.current = [];
      setMessage(note);
    } catch (err) {
      setLoadError(toApiError(err));
    }
  };
  useEffect(() => {
    setSaveError(null);
    if (uuid) load(uuid, message || (query.saved ? "Link saved." : ""));
    else {
      setLink(null);
      setForm(EMPTY);
      setRedact(false);
      setClosing(EMPTY_CLOSING);
      setKiosk(EMPTY_KIOSK);
      setDrafts([]);
    }
  }, [uuid]);

  const update = (key: string, patch: Partial<Draft>) => setDrafts((ds) => uniqueKeys(ds.map((d) => (d.key === key ? { ...d, ...patch } : d))));
  const move = (from: number, to: number) =>
    setDrafts((ds) => {
      if (to < 0 || to >= ds.length || from === to) return ds;
      const out = [...ds];
      const [item] = out.splice(from, 1);
      out.splice(to, 0, item!);
      return out;
    });
  const moveBy = (key: string, index: number, delta: -1 | 1) => {
    move(index, index + delta);
    // Keep the keyboard where it was: on the same button of the moved question.
    requestAnimationFrame(() => {
      const own = document.getElementById(`${key}-${delta < 0 ? "up" : "down"}`) as HTMLButtonElement | null;
      (own && !own.disabled ? own : document.getElementById(`${key}-${delta < 0 ? "down" : "up"}`))?.focus();
    });
  };
  const remove = (d: Draft) => {
    setDrafts((ds) => ds.filter((x) => x.key !== d.key));
    setRemoving(null);
  };
  const addQuestion = () => {
    const d = blankDraft("text");
    setDrafts((ds) => uniqueKeys([...ds, d]));
    // The new question is the one being edited: the others fold away.
    setOpenKeys(new Set([d.key]));
    requestAnimationFrame(() => document.getElementById(`${d.key}-prompt`)?.focus());
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaveError(null);
    setMessage("");
    const body = {
      name: form.name,
      ...(form.slug.trim() ? { slug: form.slug.trim() } : {}),
      settings: {
        description: form.description.trim() || null,
        thankYouMessage: form.thankYou.trim() || null,
        redirectUrl: form.redirectUrl.trim() || null,
        tts_enabled: form.tts,
        live_transcription: form.live,
        redact_pii: redact,
        access: form.invitationOnly ? "invitation" : "open",
        hidden_fields: hiddenNames(form.hidden),
        ...closingPayloadOf(closing),
        ...kioskPayloadOf(kiosk),
      },
      questions: drafts.map((d, i) => payloadOf(d, i, drafts)),
    };
    openIndexes.current = drafts.flatMap((d, i) => (openKeys.has(d.key) ? [i] : []));
    try {
      if (uuid) {
        await api<Link>("PATCH", apiPath`links/${uuid}/`, body);
        await load(uuid, "Link saved.");
      } else {
        const created = await api<Link>("POST", apiPath`links/`, body);
        setMessage("Link saved.");
        route(`/console/links/${created.uuid}/?saved=1`);
      }
    } catch (err) {
      setSaveError(toApiError(err));
      requestAnimationFrame(() => (document.querySelector("[aria-invalid='true']") as HTMLElement | null)?.focus());
    } finally {
      setBusy(false);
    }
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (uuid && !link) return <Loading what="the link" />;
  const writable = can("links:write");
  const set = (patch: Partial<LinkForm>) => setForm((f) => ({ ...f, ...patch }));
  return (
    <section class="stack builder">
      <p class="crumb">
        <a href="/console/links/">Links</a>
      </p>
      <div class="page-head">
        <h1>{link ? link.name : "New link"}</h1>
        {link && (
          <div class="actions">
            <a class="button-link button-secondary" href={`${link.public_url}?preview=1`} target="_blank" rel="noopener">
              Preview
            </a>
            <a href={`/console/links/${link.uuid}/responses/`}>Responses</a>
            <a href={`/console/links/${link.uuid}/dashboard/`}>Dashboard</a>
            <a href={`/console/links/${link.uuid}/invitations/`}>Invitations</a>
          </div>
        )}
      </div>
      {link && (
        <div class="card stack">
          <div class="field">
            <label for="public-url">Public URL</label>
            <div class="copy-row">
              <input id="public-url" readOnly class="mono" value={link.public_url} onFocus={(e) => e.currentTarget.select()} />
              <CopyButton text={link.public_url} targetId="public-url" />
            </div>
            <p class="hint">
              {link.status === "active" ? "Accepting responses." : "Paused: the page says it is not accepting responses."} “Preview” opens the page without
              recording anything.
            </p>
          </div>
        </div>
      )}
      {message && <Notice>{message}</Notice>}
      <form class="stack" onSubmit={save} noValidate>
        <div class="card stack">
          <h2>Link</h2>
          <div class="grid-2">
            <Field id="link-name" label="Name" pointer="/name" errors={errors}>
              {(aria) => <input {...aria} value={form.name} required onInput={(e) => set({ name: e.currentTarget.value })} />}
            </Field>
            <Field
              id="link-slug"
              label="Slug"
              pointer="/slug"
              errors={errors}
              hint={uuid ? "Changing it changes the public URL." : "Leave empty to make one from the name."}
            >
              {(aria) => <input {...aria} class="mono" value={form.slug} onInput={(e) => set({ slug: e.currentTarget.value })} />}
            </Field>
          </div>
          <Field id="link-description" label="Description" pointer="/settings/description" errors={errors} hint="Shown above the first question.">
            {(aria) => <textarea {...aria} rows={2} value={form.description} onInput={(e) => set({ description: e.currentTarget.value })} />}
          </Field>
          <div class="grid-2">
            <Field id="link-thanks" label="Thank-you message" pointer="/settings/thankYouMessage" errors={errors} hint="Empty: “Thanks for your response!”">
              {(aria) => <input {...aria} value={form.thankYou} onInput={(e) => set({ thankYou: e.currentTarget.value })} />}
            </Field>
            <Field
              id="link-redirect"
              label="Redirect URL"
              pointer="/settings/redirectUrl"
              errors={errors}
              hint="Where respondents go after submitting (optional)."
            >
              {(aria) => (
                <input {...aria} type="url" placeholder="https://" value={form.redirectUrl} onInput={(e) => set({ redirectUrl: e.currentTarget.value })} />
              )}
            </Field>
          </div>
          <Field
            id="link-hidden"
            label="Hidden fields"
            pointer="/settings/hidden_fields"
            errors={errors}
            hint="Names the link's URL may carry, e.g. order_id, plan: /i/slug?order_id=123. Separate with commas."
          >
            {(aria) => <input {...aria} class="mono" value={form.hidden} onInput={(e) => set({ hidden: e.currentTarget.value })} />}
          </Field>
          <ClosingFields form={closing} errors={errors} onChange={(patch) => setClosing((c) => ({ ...c, ...patch }))} />
          <KioskFields form={kiosk} errors={errors} onChange={(patch) => setKiosk((k) => ({ ...k, ...patch }))} />
          <div class="actions">
            <label class="check">
              <input type="checkbox" checked={form.tts} onChange={(e) => set({ tts: e.currentTarget.checked })} />
              Read questions aloud (TTS)
            </label>
            <label class="check">
              <input type="checkbox" checked={form.live} onChange={(e) => set({ live: e.currentTarget.checked })} />
              Live transcription while recording
            </label>
            <label class="check">
              <input type="checkbox" checked={redact} onChange={(e) => setRedact(e.currentTarget.checked)} />
              Mask personal data before it is stored (emails, phone numbers, cards, IBANs, names, addresses)
            </label>
            <label class="check">
              <input type="checkbox" checked={form.invitationOnly} onChange={(e) => set({ invitationOnly: e.currentTarget.checked })} />
              Only personal invitations can answer
            </label>
          </div>
        </div>
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
                hiddenFields={hiddenNames(form.hidden)}
                errors={errors}
                onChange={(patch) => update(d.key, patch)}
                onMove={(delta) => moveBy(d.key, i, delta)}
                onRemove={() => (d.answered > 0 ? setRemoving(d) : remove(d))}
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
                    dragKey.current = null;
                    setOverKey(null);
                  },
                  onDragEnd: () => {
                    dragKey.current = null;
                    setOverKey(null);
                  },
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
        <ErrorNote error={saveError} />
        {writable && (
          <div class="actions sticky-save">
            <button type="submit" disabled={busy}>
              Save link
            </button>
            {busy && <span class="muted">Saving…</span>}
          </div>
        )}
      </form>
      {link && <EmbedCard link={link} />}
      {link && <AlertsCard link={link} writable={writable} />}
      <ConfirmDialog
        open={removing !== null}
        title="Remove this question?"
        confirmLabel="Remove question"
        danger
        onConfirm={() => remove(removing!)}
        onCancel={() => setRemoving(null)}
      >
        <p>
          {removing?.answered === 1 ? "1 response has" : `${removing?.answered ?? 0} responses have`} answered “{removing?.prompt}”. Once you save, the question
          leaves the link; the answers already given are kept with the question's text.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** True when the server's refusal names a field of question `i` (its card must be open to show it). */
function hasErrorsAt(errors: FieldErrors, i: number): boolean {
  return [...errors.keys()].some((p) => p.startsWith(`/questions/${i}/`));
}

function ErrorAt({ errors, pointer }: { errors: FieldErrors; pointer: string }) {
  const msgs = errors.get(pointer);
  return msgs ? <p class="field-error">{msgs.join(" ")}</p> : null;
}
