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
import { ErrorNote, Loading, Pager, Time, toApiError, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import { useLive } from "../live.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { ResponseRecord } from "../../../src/modules/responses/model.ts";
import { ThemeFilterNote } from "./theme-move.tsx";
import { apiParamsOf, exportParamsOf, FILTER_KEYS, gist, sentimentOf, transcriptState, type Filters } from "./inbox.ts";
import { FilterFields } from "./responses-filters.tsx";

const PAGE_SIZE = 25;
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

  const apiParams = apiParamsOf(filters, linkUuid);
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
  const exportParams = exportParamsOf(apiParams);
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
        <FilterFields draft={draft} set={set} links={linkUuid ? null : (links.data?.results ?? [])} questions={questions} hiddenFields={hiddenFields} />
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
          <ListTable
            label="Responses"
            class="inbox"
            columns={["Submitted", ...(linkUuid ? [] : ["Link"]), "Respondent", ...(hiddenFields.length > 0 ? ["Hidden fields"] : []), "Answer", "Sentiment"]}
            rows={data.results}
            empty={active > 0 ? "No response matches the filter." : "No responses yet."}
            row={(r) => {
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
                    {g.text ? <span>{g.text.length > 140 ? `${g.text.slice(0, 140)}…` : g.text}</span> : <span class="muted">{r.answers.length} answers</span>}
                    {t && <span class="pill pill-pending">{t}</span>}
                  </td>
                  <td>{s ? <span class={`pill pill-${s}`}>{s}</span> : <span class="muted">—</span>}</td>
                </tr>
              );
            }}
          />
          <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={(p) => go(filters, p)} label="Responses" />
        </>
      )}
    </section>
  );
}
