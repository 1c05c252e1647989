/**
 * `/console/links/`: the workspace's links (DESIGN §10 "Links"): name, state, completed
 * responses, last response, the public URL with "Copy" and a QR code (uqr, drawn here as SVG),
 * "Pause"/"Resume", and "Delete" confirmed in a dialog that says responses are kept.
 */
import { useState } from "preact/hooks";
import { encode } from "uqr";
import { api, apiPath, paged, type Page } from "../api.ts";
import { ConfirmDialog, CopyButton, ErrorNote, Loading, Notice, Pager, Time, useAction, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import { can } from "../state.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { ResponseRecord } from "../../../src/modules/responses/model.ts";

const PAGE_SIZE = 20;

/** An SVG data URL of a QR code for `text` (black on white, 4-module quiet zone). */
export function qrDataUrl(text: string): string {
  const { data, size } = encode(text, { border: 4 });
  let d = "";
  data.forEach((row, y) => row.forEach((on, x) => on && (d += `M${x},${y}h1v1h-1z`)));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The QR code of a public URL in a dialog, with a download of the SVG. */
function QrDialog({ link, onClose }: { link: Link | null; onClose: () => void }) {
  return (
    <ConfirmDialog
      open={link !== null}
      title={link ? `QR code of ${link.name}` : "QR code"}
      confirmLabel="Close"
      cancellable={false}
      onConfirm={onClose}
      onCancel={onClose}
    >
      {link && (
        <div class="qr">
          <img src={qrDataUrl(link.public_url)} alt={`QR code for ${link.public_url}`} width={220} height={220} />
          <p class="mono small">{link.public_url}</p>
          <a href={qrDataUrl(link.public_url)} download={`${link.slug}-qr.svg`}>
            Download SVG
          </a>
        </div>
      )}
    </ConfirmDialog>
  );
}

/** "Last response" of one link: its newest response of any status. */
function LastResponse({ uuid }: { uuid: string }) {
  const last = useLoad(() => api<Page<ResponseRecord>>("GET", apiPath`links/${uuid}/responses/?status=all&page_size=1`).catch(() => null), [uuid]);
  const r = last.data?.results[0];
  if (last.loading && !last.data) return <span class="muted">…</span>;
  return <Time iso={r ? (r.submitted_at ?? r.date_created) : null} />;
}

/** `/console/links/`. */
export function LinksPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<Link>>("GET", paged(apiPath`links/`, page, PAGE_SIZE)), [page]);
  const [qr, setQr] = useState<Link | null>(null);
  const [deleting, setDeleting] = useState<Link | null>(null);
  const action = useAction();
  const writable = can("links:write");
  const setStatus = (l: Link, status: Link["status"]) =>
    action.run(status === "paused" ? `${l.name} is paused.` : `${l.name} accepts responses again.`, async () => {
      await api("PATCH", apiPath`links/${l.uuid}/`, { status });
      list.reload();
    });
  const remove = () => {
    const l = deleting!;
    return action.run(`${l.name} was deleted. Its responses are kept under Responses.`, async () => {
      await api("DELETE", apiPath`links/${l.uuid}/`);
      setDeleting(null);
      list.reload();
    });
  };
  const data = list.data;
  return (
    <section class="stack">
      <div class="page-head">
        <h1>Links</h1>
        {writable && (
          <a class="button-link" href="/console/links/new/">
            New link
          </a>
        )}
      </div>
      <p class="lead">Each link is a public page that asks its questions and records the answers.</p>
      <ErrorNote error={list.error ?? action.error} />
      {action.message && <Notice>{action.message}</Notice>}
      {list.loading && !data && <Loading what="links" />}
      {data && (
        <ListTable
          label="Links"
          class="links-table"
          columns={["Name", "State", "Completed", "Last response", "Public URL"]}
          actions
          rows={data.results}
          empty={<>No links yet. {writable ? "Make one with “New link”." : ""}</>}
          row={(l) => (
            <tr key={l.uuid}>
              <td class="strong">
                <a href={`/console/links/${l.uuid}/`}>{l.name}</a>
                <div class="row-links small">
                  <a href={`/console/links/${l.uuid}/responses/`} aria-label={`Responses of ${l.name}`}>
                    Responses
                  </a>
                  <a href={`/console/links/${l.uuid}/dashboard/`} aria-label={`Dashboard of ${l.name}`}>
                    Dashboard
                  </a>
                </div>
              </td>
              <td>
                <span class={`pill ${l.status === "active" ? "pill-on" : "pill-off"}`}>{l.status === "active" ? "Active" : "Paused"}</span>
              </td>
              <td class="num">{l.response_count}</td>
              <td>
                <LastResponse uuid={l.uuid} />
              </td>
              <td class="url-cell">
                <a href={l.public_url} target="_blank" rel="noopener">
                  {l.public_url}
                </a>
                <div class="actions small-actions">
                  <CopyButton text={l.public_url} />
                  <button type="button" class="button-secondary" onClick={() => setQr(l)} aria-label={`QR code of ${l.name}`}>
                    QR code
                  </button>
                </div>
              </td>
              <td class="row-actions">
                {writable && (
                  <div class="actions">
                    <button
                      type="button"
                      class="button-secondary"
                      disabled={action.busy}
                      onClick={() => setStatus(l, l.status === "active" ? "paused" : "active")}
                    >
                      {l.status === "active" ? "Pause" : "Resume"}
                    </button>
                    <button type="button" class="button-danger-quiet" onClick={() => setDeleting(l)} aria-label={`Delete ${l.name}`}>
                      Delete
                    </button>
                  </div>
                )}
              </td>
            </tr>
          )}
        />
      )}
      {data && <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={setPage} label="Links" />}
      <QrDialog link={qr} onClose={() => setQr(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? "link"}?`}
        confirmLabel="Delete link"
        danger
        busy={action.busy}
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>The public URL stops working at once. Responses already received are kept: they stay under Responses, with their question texts.</p>
      </ConfirmDialog>
    </section>
  );
}
