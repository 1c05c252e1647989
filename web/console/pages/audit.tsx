/**
 * The audit log (DESIGN §10, `GET audit/`): newest first, paginated on the server, filtered by
 * action (exact or a prefix such as `webhook.`), actor, and a time range.
 */
import { useState } from "preact/hooks";
import { api, apiPath, paged, type Page } from "../api.ts";
import { ErrorNote, Loading, Pager, Time, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";

type AuditEntry = {
  uuid: string;
  time: string;
  actor: { type: "user" | "key" | "system"; uuid: string | null; name: string | null };
  action: string;
  target: { type: string; uuid: string | null; label: string | null } | null;
  client_address: string | null;
};

const ACTIONS = [
  "link.",
  "link.created",
  "link.updated",
  "link.deleted",
  "token.",
  "token.created",
  "token.revoked",
  "webhook.",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "response.erased",
  "retention.applied",
  "member.",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "member.digest_changed",
  "workspace.updated",
  "login.",
  "login.succeeded",
  "login.failed",
  "password.changed",
  "mail.",
  "mail.test_sent",
  "mail.test_failed",
  "mcp.",
  "mcp.tool_called",
  "mcp.tool_refused",
];
const PAGE_SIZE = 25;

/** `datetime-local` value → ISO timestamp (empty stays empty). */
function toIso(local: string): string {
  return local ? new Date(local).toISOString() : "";
}

export function AuditSection() {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<Record<string, string>>({});
  const log = useLoad(() => api<Page<AuditEntry>>("GET", paged(apiPath`audit/`, page, PAGE_SIZE, filters)), [page, filters]);
  const apply = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setPage(1);
    setFilters({
      action: String(f.get("action") ?? ""),
      actor: String(f.get("actor") ?? "").trim(),
      since: toIso(String(f.get("since") ?? "")),
      until: toIso(String(f.get("until") ?? "")),
    });
  };
  const data = log.data;
  return (
    <section class="card stack" aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <form class="filters" onSubmit={apply} aria-label="Audit log filters">
        <div class="field">
          <label for="audit-action">Action</label>
          <select id="audit-action" name="action">
            <option value="">Any action</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a.endsWith(".") ? `${a}*` : a}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="audit-actor">Actor</label>
          <input id="audit-actor" name="actor" placeholder="name or uuid" />
        </div>
        <div class="field">
          <label for="audit-since">Since</label>
          <input id="audit-since" name="since" type="datetime-local" />
        </div>
        <div class="field">
          <label for="audit-until">Until</label>
          <input id="audit-until" name="until" type="datetime-local" />
        </div>
        <div class="actions">
          <button type="submit" class="button-secondary">
            Filter
          </button>
        </div>
      </form>
      <ErrorNote error={log.error} />
      {log.loading && !data && <Loading what="the audit log" />}
      {data && (
        <ListTable
          label="Audit log"
          columns={["Time", "Actor", "Action", "Target", "Address"]}
          rows={data.results}
          empty={<>Nothing recorded{Object.values(filters).some(Boolean) ? " for these filters" : ""}.</>}
          row={(a) => (
            <tr key={a.uuid}>
              <td>
                <Time iso={a.time} />
              </td>
              <td>
                {a.actor.name ?? a.actor.type}
                {a.actor.type !== "user" && <span class="muted small"> ({a.actor.type})</span>}
              </td>
              <td class="mono small">{a.action}</td>
              <td>
                {a.target ? (
                  <>
                    {a.target.label ?? a.target.uuid} <span class="muted small">({a.target.type})</span>
                  </>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <td class="mono small">{a.client_address ?? "—"}</td>
            </tr>
          )}
        />
      )}
      {data && <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={setPage} label="Audit log" />}
    </section>
  );
}
