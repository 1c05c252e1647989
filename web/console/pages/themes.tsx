/**
 * @module web/console/pages/themes
 * A link's Themes view (`/console/links/<uuid>/themes/`; issue 24, DESIGN §12): what people are
 * saying, as themes ranked by size (theme-card.tsx), per open question ("Question" filter); the
 * build state (`GET …/themes/status/`) with "Rebuild themes"; "New theme", and per theme rename,
 * merge and delete (theme-dialogs.tsx). Live like the inbox (live.ts): new answers and a finished
 * rebuild appear without a reload.
 */
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, paged, type Page, apiPath } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, Notice, Time, useAction, useLoad } from "../components.tsx";
import { useLive } from "../live.ts";
import { can } from "../state.ts";
import { isThemed, rankThemes, type Theme, type ThemeStatus } from "../themes.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import { ThemeCard } from "./theme-card.tsx";
import { MergeThemeDialog, NewThemeDialog, RenameThemeDialog } from "./theme-dialogs.tsx";

const PAGE_SIZE = 100;

function StatusLine({ status }: { status: ThemeStatus }) {
  const { answers_total: total, answers_assigned: assigned, answers_pending: pending } = status;
  return (
    <p class="muted" role="status">
      {status.state === "building" ? "Rebuilding the themes… " : ""}
      {total === 0 ? "No analysed answers yet." : `${assigned} of ${total} analysed ${total === 1 ? "answer is" : "answers are"} in a theme.`}
      {pending > 0 ? ` ${pending} ${pending === 1 ? "answer waits" : "answers wait"} for analysis.` : ""}
      {status.built_at && (
        <>
          {" "}
          Built <Time iso={status.built_at} />.
        </>
      )}
    </p>
  );
}

/** `/console/links/<uuid>/themes/`. */
export function ThemesPage() {
  const { params } = useRoute();
  const { query, path, route } = useLocation();
  const uuid = params.uuid!;
  const question = query.question || null;
  const link = useLoad(() => api<Link>("GET", apiPath`links/${uuid}/`), [uuid]);
  const list = useLive<Page<Theme>>(paged(apiPath`links/${uuid}/themes/`, 1, PAGE_SIZE, question ? { question } : {}));
  const status = useLive<ThemeStatus>(apiPath`links/${uuid}/themes/status/`);
  const [renaming, setRenaming] = useState<Theme | null>(null);
  const [merging, setMerging] = useState<Theme | null>(null);
  const [deleting, setDeleting] = useState<Theme | null>(null);
  const [creating, setCreating] = useState(false);
  const [message, setMessage] = useState("");
  const rebuild = useAction();
  const remove = useAction();
  const writer = can("responses:write");
  const open = (link.data?.questions ?? []).filter((q) => isThemed(q.response_type));
  const prompts = new Map(open.map((q) => [q.uuid, q.prompt]));
  const themes = rankThemes(list.data?.results ?? []);
  const reload = () => {
    list.reload();
    status.reload();
  };
  const done = (text: string) => {
    setRenaming(null);
    setMerging(null);
    setCreating(false);
    setMessage(text);
    reload();
  };
  const doDelete = () =>
    remove.run("", async () => {
      await api("DELETE", apiPath`links/${uuid}/themes/${deleting!.uuid}/`);
      done(`Theme “${deleting!.label}” deleted; its answers have no theme now.`);
      setDeleting(null);
    });
  const doRebuild = () =>
    rebuild.run("Rebuilding the themes: they update here when it is done.", async () => {
      await api("POST", apiPath`links/${uuid}/themes/rebuild/`, {});
      status.reload();
    });
  return (
    <section class="stack themes-page">
      <p class="crumb">
        <a href="/console/links/">Links</a> › <a href={`/console/links/${uuid}/`}>{link.data?.name ?? "Link"}</a>
      </p>
      <div class="page-head">
        <h1>Themes{link.data ? `: ${link.data.name}` : ""}</h1>
        <div class="actions">
          <a href={`/console/links/${uuid}/dashboard/`}>Dashboard</a>
          <a href={`/console/links/${uuid}/responses/`}>Responses</a>
          {writer && open.length > 0 && (
            <button type="button" onClick={() => setCreating(true)}>
              New theme
            </button>
          )}
        </div>
      </div>
      <div class="card stack themes-status">
        {status.data ? <StatusLine status={status.data} /> : <p class="muted">Reading the themes’ state…</p>}
        <div class="actions">
          {open.length > 1 && (
            <label class="inline-field">
              <span>Question</span>
              <select value={question ?? ""} onChange={(e) => route(`${path}${e.currentTarget.value ? `?question=${e.currentTarget.value}` : ""}`)}>
                <option value="">All questions</option>
                {open.map((q) => (
                  <option key={q.uuid} value={q.uuid}>
                    {q.prompt.length > 60 ? `${q.prompt.slice(0, 59)}…` : q.prompt}
                  </option>
                ))}
              </select>
            </label>
          )}
          {writer && (
            <button type="button" class="button-secondary" onClick={doRebuild} disabled={rebuild.busy || status.data?.state === "building"}>
              Rebuild themes
            </button>
          )}
        </div>
      </div>
      <ErrorNote error={rebuild.error ?? remove.error ?? list.error} />
      {(message || rebuild.message) && <Notice>{message || rebuild.message}</Notice>}
      {link.data && open.length === 0 && <p class="muted">This link has no open question (voice or text), so its answers form no themes.</p>}
      {!list.data && list.loading && <Loading what="the themes" />}
      {list.data && themes.length === 0 && open.length > 0 && (
        <p class="muted">
          No themes yet. Themes form once a few answers to an open question have been analysed{writer ? "; you can also start one with “New theme”" : ""}.
        </p>
      )}
      {list.data && list.data.count > themes.length && (
        <p class="muted small">
          Showing the {themes.length} largest of {list.data.count} themes.
        </p>
      )}
      <ol class="theme-list">
        {themes.map((t) => (
          <li key={t.uuid}>
            <ThemeCard
              theme={t}
              linkUuid={uuid}
              questionPrompt={open.length > 1 && !question ? (prompts.get(t.question_uuid) ?? null) : null}
              onRename={writer ? () => (setMessage(""), setRenaming(t)) : null}
              onMerge={writer ? () => (setMessage(""), setMerging(t)) : null}
              onDelete={writer ? () => (setMessage(""), setDeleting(t)) : null}
            />
          </li>
        ))}
      </ol>
      <NewThemeDialog open={creating} linkUuid={uuid} questions={open} question={question} onDone={done} onCancel={() => setCreating(false)} />
      <RenameThemeDialog theme={renaming} linkUuid={uuid} onDone={done} onCancel={() => setRenaming(null)} />
      <MergeThemeDialog theme={merging} linkUuid={uuid} others={themes} onDone={done} onCancel={() => setMerging(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete theme?"
        confirmLabel="Delete theme"
        danger
        busy={remove.busy}
        onConfirm={doDelete}
        onCancel={() => setDeleting(null)}
      >
        <p>“{deleting?.label}” goes away and its answers have no theme until the next rebuild places them. The answers themselves are kept.</p>
      </ConfirmDialog>
    </section>
  );
}
