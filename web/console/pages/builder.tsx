/**
 * The link builder (`/console/links/new/` and `/console/links/<uuid>/`; DESIGN §6, §10):
 * "Name", "Slug", the link settings (link-settings.tsx), the questions ("Add question", each a
 * QuestionEditor, reordered by "Move up"/"Move down" or drag and drop; question-list.tsx) and
 * "Save link". Editing sends every question with its uuid (`PATCH links/{uuid}/` keeps them and
 * their answers); removing a question that has answers asks first. A saved link shows the cards
 * of LINK_CARDS ("Public URL", link-cards.tsx) and "Preview" (the intake page with
 * `?preview=1`, which records nothing).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, apiPath, type ApiError } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, Notice, toApiError } from "../components.tsx";
import { can } from "../state.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { LinkStats } from "../../../src/modules/stats/model.ts";
import { LINK_CARDS } from "./link-cards.tsx";
import { EmbedCard } from "./embed-card.tsx";
import { EMPTY_LINK_FORM, hiddenNames, linkBodyOf, linkFormOf, type LinkForm } from "./link-form.ts";
import { LinkSettingsCard } from "./link-settings.tsx";
import { QuestionList } from "./question-list.tsx";
import { draftOf, fieldErrorsOf, newKey, type Draft, type FieldErrors } from "./question-draft.ts";
import { AlertsCard } from "./alerts-card.tsx";

/** `/console/links/new/` and `/console/links/<uuid>/`. */
export function BuilderPage() {
  const { params } = useRoute();
  const { route, query } = useLocation();
  const uuid = params.uuid && params.uuid !== "new" ? params.uuid : null;
  const [link, setLink] = useState<Link | null>(null);
  const [form, setForm] = useState<LinkForm>(EMPTY_LINK_FORM);
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  // A new link arrives here from "Save link" on /console/links/new/ with ?saved=1.
  const [message, setMessage] = useState(query.saved ? "Link saved." : "");
  const [removing, setRemoving] = useState<Draft | null>(null);
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
      setForm(linkFormOf(l));
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
      setForm(EMPTY_LINK_FORM);
      setDrafts([]);
    }
  }, [uuid]);

  const remove = (d: Draft) => {
    setDrafts((ds) => ds.filter((x) => x.key !== d.key));
    setRemoving(null);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaveError(null);
    setMessage("");
    const body = linkBodyOf(form, drafts);
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
      {link && LINK_CARDS.map((Card, i) => <Card key={i} link={link} />)}
      {message && <Notice>{message}</Notice>}
      <form class="stack" onSubmit={save} noValidate>
        <LinkSettingsCard form={form} errors={errors} saved={uuid !== null} onChange={set} />
        <QuestionList
          drafts={drafts}
          setDrafts={setDrafts}
          errors={errors}
          hiddenFields={hiddenNames(form.hidden)}
          openKeys={openKeys}
          setOpenKeys={setOpenKeys}
          onRemove={(d) => (d.answered > 0 ? setRemoving(d) : remove(d))}
        />
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
