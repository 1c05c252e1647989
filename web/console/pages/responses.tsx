/**
 * The responses inbox, per link (`/console/links/<uuid>/responses/`) and workspace-wide
 * (`/console/responses/`): server-side pages, filters (status, date range, sentiment,
 * actionable, topic, a question's value, a theme), search (typed text and transcripts), sorting, and the
 * export of the current filter (CSV, JSONL). The filter lives in the address (`?topic=…`), so
 * the dashboard's topics open it. Live: new responses and finished transcriptions appear without
 * a reload (live.ts).
 */
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { API_BASE, api, apiPath, paged, type ApiError, type ApiPath, type Page } from "../api.ts";
import { ErrorNote, Loading, Pager, TableWrap, Time, toApiError, useLoad } from "../components.tsx";
import { useLive } from "../live.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { Answer, ResponseRecord } from "../../../src/modules/responses/model.ts";
import { ThemeFilterNote } from "./theme-move.tsx";

const PAGE_SIZE = 25;
const FILTER_KEYS = [
  "status",
  "since",
  "until",
  "sentiment",
  "actionable",
  "topic",
  "question",
  "value",
  "search",
  "ordering",
  "link",
  "theme",
  "hidden_field",
  "hidden_value",
] as const;
type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** The answer that best summarises a response in a list: the one in the filtered theme, else a transcript or typed text. */
function gist(r: ResponseRecord, theme?: string): { text: string; answer: Answer | null } {
  const spoken =
    (theme ? r.answers.find((a) => a.theme?.uuid === theme) : undefined) ??
    r.answers.find((a) => a.transcription) ??
    r.answers.find((a) => a.text && a.response_type !== "email");
  return { text: spoken?.transcription ?? spoken?.text ?? "", answer: spoken ?? null };
}

function sentimentOf(r: ResponseRecord): string | null {
  const a = r.answers.find((x) => x.ai_insights);
  return a?.ai_insights?.sentiment ?? null;
}

function transcriptState(r: ResponseRecord): string | null {
  const voice = r.answers.filter((a) => a.audio_url);
  if (voice.some((a) => a.transcription_status === "failed")) return "Transcription failed";
  if (voice.some((a) => a.transcription_status === "waiting_for_model")) return "Waiting for the model";
  if (voice.some((a) => a.transcription_status === "pending" || a.transcription_status === "processing")) return "Transcribing…";
  return null;
}

/** Both inbox routes. */
export function ResponsesPage() {
  const { params } = useRoute();
  const { query, path, route } = useLocation();
  const linkUuid = params.uuid ?? null;
  const filters: Filters = Object.fromEntries(FILTER_KEYS.filter((k) => query[k]).map((k) => [k, query[k]]));
  const page = Number(query.page ?? "1") || 1;
  const [draft, setDraft] = useState<Filters>(filters);
  const scopedLink = linkUuid ?? filters.link ?? null;
  const links = useLoad(() => api<Page<Link>>("GET", paged(apiPath`links/`, 1, 100)).catch(() => null), []);
  const link = useLoad(() => (scopedLink ? api<Link>("GET", apiPath`links/${scopedLink}/`).catch(() => null) : Promise.resolve(null)), [scopedLink]);
  const names = new Map((links.data?.results ?? []).map((l) => [l.uuid, l.name]));

  const apiParams: Record<string, string> = { ...filters };
  if (apiParams.link && linkUuid) delete apiParams.link;
  // The address keeps the hidden-field filter as two keys; the API takes `hidden.<name>=<value>` (issue 25).
  delete apiParams.hidden_field;
  delete apiParams.hidden_value;
  if (filters.hidden_field && filters.hidden_value) apiParams[`hidden.${filters.hidden_field}`] = filters.hidden_value;
  // The paths carry the route's link and the address's `link` filter: apiPath refuses anything
  // but an identifier, and then nothing is requested (issue 22).
  let listPath: ApiPath | null = null;
  let exportPath: ApiPath | null = null;
  let pathError: ApiError | null = null;
  try {
    listPath = paged(linkUuid ? apiPath`links/${linkUuid}/responses/` : apiPath`responses/`, page, PAGE_SIZE, apiParams);
    exportPath = scopedLink ? apiPath`links/${scopedLink}/responses/export/` : apiPath`responses/export/`;
  } catch (err) {
    listPath = null;
    pathError = toApiError(err);
  }
  const list = useLive<Page<ResponseRecord>>(listPath);

  const go = (f: Filters, p = 1) => {
    const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v) as [string, string][]);
    if (p > 1) q.set("page", String(p));
    route(`${path}${q.size ? `?${q}` : ""}`);
  };
  const apply = (e: Event) => {
    e.preventDefault();
    go(draft);
  };
  const clear = () => {
    setDraft({});
    go({});
  };
  const set = (k: keyof Filters, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const exportParams = new URLSearchParams(Object.entries(apiParams).filter(([k, v]) => v && k !== "ordering" && k !== "link") as [string, string][]);
  if (!exportParams.has("status")) exportParams.set("status", "completed");
  // A link's own export (one column per its field_key), or the workspace's (a link_uuid column).
  const exportHref = (format: string) => `${API_BASE}${exportPath}?format=${format}&${exportParams}`;
  const questions = link.data?.questions ?? [];
  const hiddenFields = link.data?.settings.hidden_fields ?? [];
  const data = list.data;
  const title = linkUuid ? `Responses${link.data ? ` to ${link.data.name}` : ""}` : "Responses";
  const active = Object.keys(filters).filter((k) => k !== "ordering").length;
  return (
    <section class="stack">
      {linkUuid && (
        <p class="crumb">
          <a href="/console/links/">Links</a> › <a href={`/console/links/${linkUuid}/`}>{link.data?.name ?? "Link"}</a>
        </p>
      )}
      <div class="page-head">
        <h1>{title}</h1>
        {linkUuid && (
          <div class="actions">
            <a href={`/console/links/${linkUuid}/themes/`}>Themes</a>
            <a href={`/console/links/${linkUuid}/dashboard/`}>Dashboard</a>
          </div>
        )}
      </div>
      {filters.theme && scopedLink && <ThemeFilterNote linkUuid={scopedLink} themeUuid={filters.theme} onClear={() => go({ ...filters, theme: "" })} />}
      <form class="card filters-card" onSubmit={apply} aria-label="Filter responses">
        <div class="filters">
          <div class="field wide">
            <label for="f-search">Search</label>
            <input
              id="f-search"
              type="search"
              value={draft.search ?? ""}
              placeholder="Words in answers and transcripts"
              onInput={(e) => set("search", e.currentTarget.value)}
            />
          </div>
          {!linkUuid && (
            <div class="field">
              <label for="f-link">Link</label>
              <select id="f-link" value={draft.link ?? ""} onChange={(e) => set("link", e.currentTarget.value)}>
                <option value="">All links</option>
                {(links.data?.results ?? []).map((l) => (
                  <option key={l.uuid} value={l.uuid}>
                    {l.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          <div class="field">
            <label for="f-status">Status</label>
            <select id="f-status" value={draft.status ?? "completed"} onChange={(e) => set("status", e.currentTarget.value)}>
              <option value="completed">Completed</option>
              <option value="started">Started, not submitted</option>
              <option value="all">All</option>
            </select>
          </div>
          <div class="field">
            <label for="f-since">From</label>
            <input id="f-since" type="date" value={draft.since ?? ""} onInput={(e) => set("since", e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="f-until">To</label>
            <input id="f-until" type="date" value={draft.until ?? ""} onInput={(e) => set("until", e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="f-sentiment">Sentiment</label>
            <select id="f-sentiment" value={draft.sentiment ?? ""} onChange={(e) => set("sentiment", e.currentTarget.value)}>
              <option value="">Any</option>
              <option value="positive">Positive</option>
              <option value="neutral">Neutral</option>
              <option value="negative">Negative</option>
            </select>
          </div>
          <div class="field">
            <label for="f-actionable">Actionable</label>
            <select id="f-actionable" value={draft.actionable ?? ""} onChange={(e) => set("actionable", e.currentTarget.value)}>
              <option value="">Any</option>
              <option value="true">Actionable</option>
              <option value="false">Not actionable</option>
            </select>
          </div>
          <div class="field">
            <label for="f-topic">Topic</label>
            <input id="f-topic" value={draft.topic ?? ""} onInput={(e) => set("topic", e.currentTarget.value)} />
          </div>
          {questions.length > 0 && (
            <>
              <div class="field">
                <label for="f-question">Question</label>
                <select id="f-question" value={draft.question ?? ""} onChange={(e) => set("question", e.currentTarget.value)}>
                  <option value="">Any question</option>
                  {questions.map((q) => (
                    <option key={q.uuid} value={q.field_key}>
                      {q.prompt.slice(0, 60)}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="f-value">Answer value</label>
                <input id="f-value" value={draft.value ?? ""} disabled={!draft.question} onInput={(e) => set("value", e.currentTarget.value)} />
              </div>
            </>
          )}
          {hiddenFields.length > 0 && (
            <>
              <div class="field">
                <label for="f-hidden-field">Hidden field</label>
                <select id="f-hidden-field" value={draft.hidden_field ?? ""} onChange={(e) => set("hidden_field", e.currentTarget.value)}>
                  <option value="">Any hidden field</option>
                  {hiddenFields.map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="f-hidden-value">Hidden value</label>
                <input
                  id="f-hidden-value"
                  value={draft.hidden_value ?? ""}
                  disabled={!draft.hidden_field}
                  onInput={(e) => set("hidden_value", e.currentTarget.value)}
                />
              </div>
            </>
          )}
          <div class="field">
            <label for="f-ordering">Sort by</label>
            <select id="f-ordering" value={draft.ordering ?? "-submitted_at"} onChange={(e) => set("ordering", e.currentTarget.value)}>
              <option value="-submitted_at">Newest submitted</option>
              <option value="submitted_at">Oldest submitted</option>
              <option value="-date_created">Newest started</option>
              <option value="date_created">Oldest started</option>
            </select>
          </div>
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          {active > 0 && (
            <button type="button" class="button-secondary" onClick={clear}>
              Clear filters
            </button>
          )}
          {exportPath && (
            <span class="export">
              <a class="button-link button-secondary" href={exportHref("csv")} download>
                Export CSV
              </a>
              <a class="button-link button-secondary" href={exportHref("jsonl")} download>
                Export JSONL
              </a>
            </span>
          )}
        </div>
      </form>
      <ErrorNote error={pathError ?? list.error} />
      {list.loading && !data && <Loading what="responses" />}
      {data && (
        <>
          <p class="muted" role="status">
            {data.count === 1 ? "1 response" : `${data.count} responses`}
            {active > 0 ? (data.count === 1 ? " matches the filter" : " match the filter") : ""}.
          </p>
          <TableWrap label="Responses">
            <table class="inbox">
              <caption class="visually-hidden">Responses</caption>
              <thead>
                <tr>
                  <th scope="col">Submitted</th>
                  {!linkUuid && <th scope="col">Link</th>}
                  <th scope="col">Respondent</th>
                  {hiddenFields.length > 0 && <th scope="col">Hidden fields</th>}
                  <th scope="col">Answer</th>
                  <th scope="col">Sentiment</th>
                </tr>
              </thead>
              <tbody>
                {data.results.length === 0 && (
                  <tr>
                    <td colSpan={(linkUuid ? 4 : 5) + (hiddenFields.length > 0 ? 1 : 0)} class="empty">
                      {active > 0 ? "No response matches the filter." : "No responses yet."}
                    </td>
                  </tr>
                )}
                {data.results.map((r) => {
                  const g = gist(r, filters.theme);
                  const s = sentimentOf(r);
                  const t = transcriptState(r);
                  return (
                    <tr key={r.uuid}>
                      <td>
                        <a href={`/console/responses/${r.uuid}/`}>
                          <Time iso={r.submitted_at ?? r.date_created} />
                          <span class="visually-hidden"> (open the response{r.respondent_email ? ` of ${r.respondent_email}` : ""})</span>
                        </a>
                        {r.status === "started" && <span class="pill pill-off">Started</span>}
                      </td>
                      {!linkUuid && <td>{names.get(r.link_uuid) ?? <span class="muted">Deleted link</span>}</td>}
                      <td>{r.respondent_email ?? <span class="muted">Anonymous</span>}</td>
                      {hiddenFields.length > 0 && (
                        <td class="mono">
                          {hiddenFields
                            .filter((name) => r.hidden?.[name])
                            .map((name) => `${name}: ${r.hidden![name]}`)
                            .join(", ") || <span class="muted">—</span>}
                        </td>
                      )}
                      <td class="gist">
                        {g.text ? (
                          <span>{g.text.length > 140 ? `${g.text.slice(0, 140)}…` : g.text}</span>
                        ) : (
                          <span class="muted">{r.answers.length} answers</span>
                        )}
                        {t && <span class="pill pill-pending">{t}</span>}
                      </td>
                      <td>{s ? <span class={`pill pill-${s}`}>{s}</span> : <span class="muted">—</span>}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
          <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={(p) => go(filters, p)} label="Responses" />
        </>
      )}
    </section>
  );
}
