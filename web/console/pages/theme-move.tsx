/**
 * @module web/console/pages/theme-move
 * Themes where answers are shown (issue 24, DESIGN §12): on a response's page, an open
 * question's answer names its theme (a link to the link's Themes view) and, for roles with
 * `responses:write`, "Move to theme" + "Move answer" moves it to another theme of the same
 * question or to none (`PATCH …/answers/{uuid}/insights/` with `theme_uuid`); in the inbox, the
 * note that says which theme the list is filtered by.
 */
import { useState } from "preact/hooks";
import { api, paged, type Page, apiPath } from "../api.ts";
import { ErrorNote, Notice, useAction, useLoad } from "../components.tsx";
import { can } from "../state.ts";
import { isThemed, type Theme } from "../themes.ts";
import type { Answer } from "../../../src/modules/responses/model.ts";

/** The answer's theme and the form that moves it. */
export function AnswerTheme({ a, responseUuid, linkUuid, onChanged }: { a: Answer; responseUuid: string; linkUuid: string; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const action = useAction();
  const [target, setTarget] = useState<string | null>(null);
  // Loaded when the form opens: the themes this answer can move to (its own question's).
  const themes = useLoad(
    () => (open ? api<Page<Theme>>("GET", paged(apiPath`links/${linkUuid}/themes/`, 1, 100, { question: a.question_uuid })) : Promise.resolve(null)),
    [open, linkUuid, a.question_uuid],
  );
  // Only open questions' answers have themes (a server before themes sends no `theme` at all).
  if (a.theme === undefined || !isThemed(a.response_type)) return null;
  const current = a.theme?.uuid ?? "";
  const chosen = target ?? current;
  const move = (e: Event) => {
    e.preventDefault();
    action.run(chosen ? "Answer moved." : "Answer taken out of its theme.", async () => {
      await api("PATCH", apiPath`responses/${responseUuid}/answers/${a.uuid}/insights/`, { theme_uuid: chosen || null });
      setTarget(null);
      onChanged();
    });
  };
  return (
    <div class="answer-theme">
      <dl class="facts">
        <div>
          <dt>Theme</dt>
          <dd>{a.theme ? <a href={`/console/links/${linkUuid}/themes/`}>{a.theme.label}</a> : <span class="muted">None</span>}</dd>
        </div>
      </dl>
      {can("responses:write") && (
        <details class="correct" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
          <summary>Move to another theme</summary>
          <form class="actions" onSubmit={move}>
            <label class="inline-field">
              <span>Move to theme</span>
              <select value={chosen} onChange={(e) => setTarget(e.currentTarget.value)}>
                <option value="">No theme</option>
                {a.theme && !(themes.data?.results ?? []).some((t) => t.uuid === a.theme!.uuid) && <option value={a.theme.uuid}>{a.theme.label}</option>}
                {(themes.data?.results ?? []).map((t) => (
                  <option key={t.uuid} value={t.uuid}>
                    {t.label}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="button-secondary" disabled={action.busy || chosen === current}>
              Move answer
            </button>
          </form>
          <ErrorNote error={action.error ?? themes.error} />
          {action.message && <Notice>{action.message}</Notice>}
        </details>
      )}
    </div>
  );
}

/** "Showing the answers in theme …" above a theme-filtered inbox, with a way out. */
export function ThemeFilterNote({ linkUuid, themeUuid, onClear }: { linkUuid: string; themeUuid: string; onClear: () => void }) {
  const theme = useLoad(() => api<Theme>("GET", apiPath`links/${linkUuid}/themes/${themeUuid}/`), [linkUuid, themeUuid]);
  return (
    <div class="note theme-filter">
      <p>
        {theme.data ? (
          <>
            Responses with an answer in the theme <strong>“{theme.data.label}”</strong> ({theme.data.size === 1 ? "1 answer" : `${theme.data.size} answers`}).
          </>
        ) : theme.error ? (
          "This theme no longer exists (it may have been merged or deleted)."
        ) : (
          "Responses in one theme."
        )}{" "}
        <a href={`/console/links/${linkUuid}/themes/`}>All themes</a>
      </p>
      <button type="button" class="button-secondary" onClick={onClear}>
        Show all responses
      </button>
    </div>
  );
}
