/**
 * Webhooks (DESIGN §8, §10): the paginated list with each webhook's enabled state and last
 * delivery status, and creating one (URL, events, optionally one link), whose signing secret is
 * shown once. A webhook limited to one link (from the form or a link's `on_finished`) is marked
 * as such.
 */
import { useState } from "preact/hooks";
import { api, apiPath, paged, type ApiError, type ApiPath, type Page } from "../api.ts";
import { ErrorNote, Loading, Notice, Pager, SecretField, Time, toApiError, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import { can, session } from "../state.ts";
import { WEBHOOK_EVENTS } from "../../../src/shared/webhook-events.ts";
import type { Webhook } from "../../../src/modules/webhooks/model.ts";

const PAGE_SIZE = 20;

/**
 * `workspaces/{current}/webhooks/` for the session's workspace, followed by `sub` (itself built by
 * apiPath, e.g. `` apiPath`${uuid}/test/` ``).
 * @throws ApiError 404 when the session has no current workspace or a parameter is not one
 */
export function webhooksPath(sub: ApiPath = apiPath``): ApiPath {
  return (apiPath`workspaces/${session.value?.current_workspace_uuid ?? ""}/webhooks/` + sub) as ApiPath;
}

/** "200", "No answer" or "None yet" for a webhook's last delivery. */
export function DeliveryStatus({ status, at }: { status: number | null; at: string | null }) {
  if (!at) return <span class="muted">None yet</span>;
  const ok = status !== null && status >= 200 && status < 300;
  return (
    <span class={`status ${ok ? "status-ok" : "status-bad"}`}>
      {status ?? "No answer"} · <Time iso={at} />
    </span>
  );
}

function CreateWebhookForm({ onCreated, onCancel }: { onCreated: (w: Webhook & { secret: string }) => void; onCancel: () => void }) {
  // The link filter offers the workspace's links (the first 100, newest first).
  const links = useLoad(
    () => (can("links:read") ? api<Page<{ uuid: string; name: string }>>("GET", paged(apiPath`links/`, 1, 100)) : Promise.resolve(null)),
    [],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const body: Record<string, unknown> = { url: String(f.get("url") ?? "").trim(), events: f.getAll("events").map(String) };
    const link = String(f.get("link_uuid") ?? "");
    if (link) body.link_uuid = link;
    setBusy(true);
    setError(null);
    try {
      onCreated(await api<Webhook & { secret: string }>("POST", webhooksPath(), body));
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">Add a webhook</h2>
      <div class="field">
        <label for="webhook-url">URL</label>
        <input id="webhook-url" name="url" type="url" required placeholder="https://example.com/earshot" aria-describedby="webhook-url-hint" autoFocus />
        <p class="hint" id="webhook-url-hint">
          HTTPS only. Earshot signs every delivery (Standard Webhooks).
        </p>
      </div>
      <fieldset>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((ev) => (
          <label key={ev} class="check">
            <input type="checkbox" name="events" value={ev} defaultChecked={ev === "response.submitted"} />
            <span class="mono">{ev}</span>
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="webhook-link">Link</label>
        <select id="webhook-link" name="link_uuid" aria-describedby="webhook-link-hint">
          <option value="">All links</option>
          {(links.data?.results ?? []).map((l) => (
            <option key={l.uuid} value={l.uuid}>
              {l.name}
            </option>
          ))}
        </select>
        <p class="hint" id="webhook-link-hint">
          Only this link's responses, or every link of the workspace.
        </p>
      </div>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Add webhook
        </button>
        <button type="button" class="button-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** `/console/webhooks/`. */
export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<Webhook>>("GET", paged(webhooksPath(), page, PAGE_SIZE)), [page]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(Webhook & { secret: string }) | null>(null);
  const canWrite = can("webhooks:write");
  const data = list.data;
  return (
    <section class="stack">
      <div class="page-head">
        <h1>Webhooks</h1>
        {canWrite && !creating && (
          <button type="button" onClick={() => (setCreating(true), setCreated(null))}>
            Add webhook
          </button>
        )}
      </div>
      <p class="lead">Earshot posts an event to each enabled webhook when a response starts or is submitted.</p>
      {creating && (
        <CreateWebhookForm
          onCancel={() => setCreating(false)}
          onCreated={(w) => {
            setCreating(false);
            setCreated(w);
            setPage(1);
            list.reload();
          }}
        />
      )}
      {created && (
        <section class="card stack new-secret" aria-labelledby="new-webhook-title">
          <h2 id="new-webhook-title">Webhook added</h2>
          <Notice>
            <p>Copy the signing secret now: it is shown only this once. Your receiver uses it to check each delivery's signature.</p>
          </Notice>
          <SecretField label="Signing secret" value={created.secret} wrap />
          <div class="actions">
            <a class="button-link" href={`/console/webhooks/${created.uuid}/`}>
              Open webhook
            </a>
            <button type="button" class="button-secondary" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </section>
      )}
      <ErrorNote error={list.error} />
      {list.loading && !data && <Loading what="webhooks" />}
      {data && (
        <ListTable
          label="Webhooks"
          columns={["URL", "Events", "State", "Last delivery"]}
          rows={data.results}
          empty={<>No webhooks yet.</>}
          row={(w) => (
            <tr key={w.uuid}>
              <td class="url-cell">
                <a href={`/console/webhooks/${w.uuid}/`}>{w.url}</a>
                {w.link_uuid && <span class="muted small"> · one link only</span>}
              </td>
              <td>
                <ul class="tags">
                  {w.events.map((e) => (
                    <li key={e}>{e}</li>
                  ))}
                </ul>
              </td>
              <td>
                <span class={`pill ${w.enabled ? "pill-on" : "pill-off"}`}>{w.enabled ? "Enabled" : "Disabled"}</span>
              </td>
              <td>
                <DeliveryStatus status={w.last_delivery_status} at={w.last_delivery_at} />
              </td>
            </tr>
          )}
        />
      )}
      {data && <Pager page={page} count={data.count} pageSize={PAGE_SIZE} onPage={setPage} label="Webhooks" />}
    </section>
  );
}
