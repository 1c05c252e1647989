/**
 * A link's invitations (`/console/links/<uuid>/invitations/`; issue 25, DESIGN §13): mint personal,
 * single-use URLs — a number of them, or one per row of a CSV of hidden-field values (first row:
 * the names) — with an optional expiry; copy or download the new URLs (CSV: the hidden values and
 * the URL); the paginated list with each invitation's state, filterable, and revoking one.
 */
import { parse } from "csv-parse/browser/esm/sync";
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, apiPath, paged, type Page } from "../api.ts";
import { ConfirmDialog, CopyButton, ErrorNote, Loading, Pager, Time, useAction, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import type { Link } from "../../../src/modules/links/model.ts";

export type Invitation = {
  uuid: string;
  url: string;
  state: "unused" | "started" | "submitted" | "expired" | "revoked";
  hidden: Record<string, string>;
  expires_at: string | null;
  date_created: string;
};

const PAGE_SIZE = 50;
const STATES = ["unused", "started", "submitted", "expired", "revoked"] as const;

/**
 * The hidden values of a CSV: one object per row, named by the first row.
 * @throws Error (csv-parse's message) for a malformed CSV
 */
export function hiddenRowsOf(csv: string): Record<string, string>[] {
  return parse(csv, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
}

/** The CSV a download holds: hidden-value columns, then the URL (RFC 4180 quoting). */
function csvOf(rows: Invitation[]): string {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.hidden)))];
  const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return [[...names, "url"], ...rows.map((r) => [...names.map((n) => r.hidden[n] ?? ""), r.url])].map((line) => line.map(cell).join(",")).join("\r\n");
}

function download(name: string, text: string): void {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function CreateForm({ linkUuid, onCreated }: { linkUuid: string; onCreated: (made: Invitation[]) => void }) {
  const action = useAction();
  const [csv, setCsv] = useState("");
  const [parseError, setParseError] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const expires = String(form.get("expires_at") ?? "");
    let hidden: Record<string, string>[] | undefined;
    setParseError("");
    if (csv.trim()) {
      try {
        hidden = hiddenRowsOf(csv);
      } catch (err) {
        setParseError(`The CSV could not be read: ${(err as Error).message}`);
        return;
      }
    }
    const body = {
      ...(hidden ? { hidden } : { count: Number(form.get("count") || 1) }),
      ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
    };
    void action.run("Invitations created.", async () => {
      onCreated((await api<{ results: Invitation[] }>("POST", apiPath`links/${linkUuid}/invitations/`, body)).results);
    });
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="create-inv-title">
      <h2 id="create-inv-title">Create invitations</h2>
      <div class="field">
        <label for="inv-count">Number of invitations</label>
        <input id="inv-count" name="count" type="number" min={1} max={1000} defaultValue="1" disabled={!!csv.trim()} aria-describedby="inv-count-hint" />
        <p class="hint" id="inv-count-hint">
          Up to 1000 at a time. With hidden values below, one invitation per row.
        </p>
      </div>
      <div class="field">
        <label for="inv-csv">Hidden values (CSV)</label>
        <textarea id="inv-csv" rows={5} value={csv} onInput={(e) => setCsv(e.currentTarget.value)} aria-describedby="inv-csv-hint" class="mono" />
        <p class="hint" id="inv-csv-hint">
          First row: the hidden field names (e.g. order_id); then one row per invitation.
        </p>
        <label for="inv-csv-file">Load a CSV file</label>
        <input
          id="inv-csv-file"
          type="file"
          accept=".csv,text/csv"
          onChange={async (e) => {
            const file = e.currentTarget.files?.[0];
            if (file) setCsv(await file.text());
          }}
        />
      </div>
      <div class="field">
        <label for="inv-expires">Expires at (optional)</label>
        <input id="inv-expires" name="expires_at" type="datetime-local" />
      </div>
      {parseError && (
        <p class="error" role="alert">
          {parseError}
        </p>
      )}
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Create invitations
        </button>
        <span role="status">{action.message}</span>
      </div>
    </form>
  );
}

function Created({ made }: { made: Invitation[] }) {
  const urls = made.map((i) => i.url).join("\n");
  return (
    <section class="card stack" aria-labelledby="created-title">
      <h2 id="created-title">New invitation URLs</h2>
      <label for="created-urls">Invitation URLs</label>
      <textarea id="created-urls" readOnly rows={Math.min(10, made.length + 1)} class="mono" value={urls} />
      <div class="actions">
        <CopyButton text={urls} targetId="created-urls" label="Copy URLs" />
        <button type="button" class="button-secondary" onClick={() => download("invitations.csv", csvOf(made))}>
          Download CSV
        </button>
      </div>
    </section>
  );
}

/** `/console/links/<uuid>/invitations/`. */
export function InvitationsPage() {
  const { params } = useRoute();
  const uuid = params.uuid!;
  const link = useLoad(() => api<Link>("GET", apiPath`links/${uuid}/`), [uuid]);
  const [page, setPage] = useState(1);
  const [state, setState] = useState("");
  const [made, setMade] = useState<Invitation[] | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const revoke = useAction();
  const list = useLoad(
    () => api<Page<Invitation>>("GET", paged(apiPath`links/${uuid}/invitations/`, page, PAGE_SIZE, state ? { state } : {})),
    [uuid, page, state, made],
  );
  return (
    <section class="stack invitations">
      <p class="crumb">
        <a href="/console/links/">Links</a> › <a href={`/console/links/${uuid}/`}>{link.data?.name ?? "Link"}</a>
      </p>
      <div class="page-head">
        <h1>Invitations{link.data ? `: ${link.data.name}` : ""}</h1>
      </div>
      {link.data && (
        <p class="muted">
          {link.data.settings.access === "invitation"
            ? "Only personal invitations can answer this link."
            : "This link is open to anyone; invitations add personal, single-use URLs."}
        </p>
      )}
      <CreateForm linkUuid={uuid} onCreated={setMade} />
      {made && <Created made={made} />}
      <div class="card stack">
        <div class="field">
          <label for="inv-state">State</label>
          <select
            id="inv-state"
            value={state}
            onChange={(e) => {
              setState(e.currentTarget.value);
              setPage(1);
            }}
          >
            <option value="">All</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <ErrorNote error={list.error ?? revoke.error} />
        {!list.data ? (
          <Loading what="invitations" />
        ) : (
          <>
            <ListTable
              label="Invitations"
              columns={["URL", "State", "Hidden values", "Expires", "Created"]}
              actions
              caption={false}
              rows={list.data.results}
              row={(i, n) => (
                <tr key={i.uuid}>
                  <td class="mono">{i.url}</td>
                  <td>{i.state}</td>
                  <td class="mono">
                    {Object.entries(i.hidden)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(", ")}
                  </td>
                  <td>
                    <Time iso={i.expires_at} mode="date" empty="—" />
                  </td>
                  <td>
                    <Time iso={i.date_created} />
                  </td>
                  <td>
                    <CopyButton text={i.url} label={`Copy URL ${(page - 1) * PAGE_SIZE + n + 1}`} />
                    {(i.state === "unused" || i.state === "started") && (
                      <button type="button" class="button-secondary" onClick={() => setRevoking(i)}>
                        Revoke<span class="visually-hidden"> invitation {(page - 1) * PAGE_SIZE + n + 1}</span>
                      </button>
                    )}
                  </td>
                </tr>
              )}
            />
            {list.data.count === 0 && <p class="muted">No invitations{state ? ` in state ${state}` : ""} yet.</p>}
            <Pager page={page} count={list.data.count} pageSize={PAGE_SIZE} onPage={setPage} label="Invitation pages" />
            <button type="button" class="button-secondary" onClick={() => download("invitations.csv", csvOf(list.data!.results))}>
              Download this page as CSV
            </button>
          </>
        )}
      </div>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this invitation?"
        confirmLabel="Revoke"
        danger
        busy={revoke.busy}
        onCancel={() => setRevoking(null)}
        onConfirm={() =>
          void revoke.run("Invitation revoked.", async () => {
            await api("DELETE", apiPath`links/${uuid}/invitations/${revoking!.uuid}/`);
            setRevoking(null);
            list.reload();
          })
        }
      >
        <p>The URL stops working at once. A response it already submitted is kept.</p>
      </ConfirmDialog>
    </section>
  );
}
