/**
 * Links and Responses as plain read-only lists of real data (`GET links/`, `GET responses/`);
 * part 2 of the console turns them into the link builder and the response views.
 */
import { useState } from "preact/hooks";
import { api, paged, type Page } from "../api.ts";
import { ErrorNote, Loading, Pager, Time, useLoad, TableWrap } from "../components.tsx";

const PAGE_SIZE = 20;

type Link = { uuid: string; name: string; slug: string; status: "active" | "paused"; response_count: number; public_url: string; date_created: string };
type Response = { uuid: string; link_uuid: string; status: "started" | "completed"; respondent_email: string | null; date_created: string; submitted_at: string | null; answers: unknown[] };

/** `/console/links/`. */
export function LinksPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<Link>>("GET", paged("links/", page, PAGE_SIZE)), [page]);
  const data = list.data;
  return (
    <section class="stack">
      <h1>Links</h1>
      <p class="lead">Feedback links of this workspace. Create and edit them through the API for now; the link builder comes next.</p>
      <ErrorNote error={list.error} />
      {list.loading && !data && <Loading what="links" />}
      {data && (
        <TableWrap label="Links">
          <table>
            <caption class="visually-hidden">Links</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Public URL</th>
                <th scope="col">State</th>
                <th scope="col">Responses</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.results.length === 0 && (
                <tr>
                  <td colSpan={5} class="empty">
                    No links yet.
                  </td>
                </tr>
              )}
              {data.results.map((l) => (
                <tr key={l.uuid}>
                  <td class="strong">{l.name}</td>
                  <td class="url-cell">
                    <a href={l.public_url} target="_blank" rel="noopener">
                      {l.public_url}
                    </a>
                  </td>
                  <td>
                    <span class={`pill ${l.status === "active" ? "pill-on" : "pill-off"}`}>{l.status === "active" ? "Active" : "Paused"}</span>
                  </td>
                  <td class="num">{l.response_count}</td>
                  <td>
                    <Time iso={l.date_created} mode="date" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {data && <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={setPage} label="Links" />}
    </section>
  );
}

/** `/console/responses/`. */
export function ResponsesPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<Response>>("GET", paged("responses/", page, PAGE_SIZE)), [page]);
  const links = useLoad(() => api<Page<Link>>("GET", paged("links/", 1, 100)).catch(() => null), []);
  const names = new Map((links.data?.results ?? []).map((l) => [l.uuid, l.name]));
  const data = list.data;
  return (
    <section class="stack">
      <h1>Responses</h1>
      <p class="lead">Submitted responses, newest first. Opening a response with its answers, transcripts and insights comes next.</p>
      <ErrorNote error={list.error} />
      {list.loading && !data && <Loading what="responses" />}
      {data && (
        <TableWrap label="Responses">
          <table>
            <caption class="visually-hidden">Responses</caption>
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col">Respondent</th>
                <th scope="col">Answers</th>
                <th scope="col">Submitted</th>
              </tr>
            </thead>
            <tbody>
              {data.results.length === 0 && (
                <tr>
                  <td colSpan={4} class="empty">
                    No responses yet.
                  </td>
                </tr>
              )}
              {data.results.map((r) => (
                <tr key={r.uuid}>
                  <td class="strong">{names.get(r.link_uuid) ?? <span class="mono small">{r.link_uuid}</span>}</td>
                  <td>{r.respondent_email ?? <span class="muted">Anonymous</span>}</td>
                  <td class="num">{r.answers.length}</td>
                  <td>
                    <Time iso={r.submitted_at ?? r.date_created} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {data && <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={setPage} label="Responses" />}
    </section>
  );
}
