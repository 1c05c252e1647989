/**
 * One webhook (DESIGN §8): its settings, enable/disable, rotate the secret (shown once), send a
 * test event, delete, and the paginated delivery log (attempts, status codes, response
 * excerpts, durations) with "Redeliver". The log refreshes itself while deliveries are on
 * their way.
 */
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, apiPath, paged, type ApiError, type Page } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, Notice, Pager, SecretField, Time, toApiError, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import { can } from "../state.ts";
import { DeliveryStatus, webhooksPath } from "./webhooks.tsx";
import type { Delivery, Webhook } from "../../../src/modules/webhooks/model.ts";

const PAGE_SIZE = 20;

function DeliveryRow({ d, canWrite, onRedeliver }: { d: Delivery; canWrite: boolean; onRedeliver: (d: Delivery) => void }) {
  const ok = d.last_status_code !== null && d.last_status_code >= 200 && d.last_status_code < 300;
  return (
    <tr>
      <td>
        <span class="mono small">{d.event_type}</span>
        <br />
        <span class="muted small mono" title="webhook-id">
          {d.event_id}
        </span>
      </td>
      <td>
        <span class={`pill pill-${d.state}`}>{d.state}</span>
        {d.next_attempt_at && d.state !== "succeeded" && (
          <span class="muted small">
            <br />
            next <Time iso={d.next_attempt_at} />
          </span>
        )}
      </td>
      <td class="num">{d.attempts}</td>
      <td class="num">
        <span class={d.last_status_code === null ? "muted" : ok ? "status-ok" : "status-bad"}>{d.last_status_code ?? "—"}</span>
      </td>
      <td class="num">{d.duration_ms === null ? "—" : `${d.duration_ms} ms`}</td>
      <td class="excerpt">
        {d.response_excerpt ? (
          <code>{d.response_excerpt.slice(0, 200)}</code>
        ) : d.last_error ? (
          <span class="status-bad">{d.last_error}</span>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td>
        <Time iso={d.date_created} />
      </td>
      {canWrite && (
        <td class="row-actions">
          <button type="button" class="button-secondary" onClick={() => onRedeliver(d)}>
            Redeliver
          </button>
        </td>
      )}
    </tr>
  );
}

/** `/console/webhooks/<uuid>/`. */
export function WebhookPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const uuid = params.uuid ?? "";
  const [page, setPage] = useState(1);
  const hook = useLoad(() => api<Webhook>("GET", webhooksPath(apiPath`${uuid}/`)), [uuid]);
  const log = useLoad(() => api<Page<Delivery>>("GET", paged(webhooksPath(apiPath`${uuid}/deliveries/`), page, PAGE_SIZE)), [uuid, page]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<"rotate" | "delete" | null>(null);
  const canWrite = can("webhooks:write");

  // While a delivery is pending or being sent, look again every second (at most 30 times).
  const inFlight = log.data?.results.some((d) => d.state === "pending" || d.state === "delivering") ?? false;
  const [polls, setPolls] = useState(0);
  useEffect(() => {
    if (!inFlight || polls >= 30) return;
    const t = setTimeout(() => {
      setPolls((n) => n + 1);
      log.reload();
      hook.reload();
    }, 1000);
    return () => clearTimeout(t);
  }, [inFlight, polls, log.data]);

  const act = async (what: string, fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setMessage("");
    try {
      await fn();
      setMessage(what);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  const w = hook.data;
  const toggle = () =>
    act(w?.enabled ? "Webhook disabled." : "Webhook enabled.", async () => {
      await api("PATCH", webhooksPath(apiPath`${uuid}/`), { enabled: !w?.enabled });
      hook.reload();
    });
  const sendTest = () =>
    act("Test event queued. It appears in the delivery log below.", async () => {
      await api("POST", webhooksPath(apiPath`${uuid}/test/`), {});
      setPolls(0);
      setPage(1);
      log.reload();
    });
  const redeliver = (d: Delivery) =>
    act(`Event ${d.event_id} queued again.`, async () => {
      await api("POST", webhooksPath(apiPath`${uuid}/deliveries/${d.uuid}/redeliver/`), {});
      setPolls(0);
      log.reload();
    });
  const rotate = () =>
    act("Secret rotated. The previous secret keeps signing for a while, so receivers can switch.", async () => {
      setConfirm(null);
      const r = await api<Webhook & { secret: string }>("POST", webhooksPath(apiPath`${uuid}/rotate-secret/`), {});
      setSecret(r.secret);
    });
  const remove = () =>
    act("Webhook deleted.", async () => {
      await api("DELETE", webhooksPath(apiPath`${uuid}/`));
      route("/console/webhooks/");
    });

  if (hook.error) {
    return (
      <section class="stack">
        <p>
          <a href="/console/webhooks/">← Webhooks</a>
        </p>
        <h1>Webhook</h1>
        <ErrorNote error={hook.error} />
      </section>
    );
  }
  if (!w) return <Loading what="the webhook" />;
  const deliveries = log.data;
  return (
    <section class="stack">
      <p class="crumb">
        <a href="/console/webhooks/">← Webhooks</a>
      </p>
      <div class="page-head">
        <h1 class="url-title">{w.url}</h1>
        <span class={`pill ${w.enabled ? "pill-on" : "pill-off"}`}>{w.enabled ? "Enabled" : "Disabled"}</span>
      </div>
      <dl class="facts card">
        <div>
          <dt>Events</dt>
          <dd>{w.events.join(", ")}</dd>
        </div>
        <div>
          <dt>Links</dt>
          <dd>{w.link_uuid ? <span class="mono small">{w.link_uuid}</span> : "All links"}</dd>
        </div>
        <div>
          <dt>Last delivery</dt>
          <dd>
            <DeliveryStatus status={w.last_delivery_status} at={w.last_delivery_at} />
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={w.date_created} mode="date" />
          </dd>
        </div>
        {w.disabled_reason && (
          <div>
            <dt>Disabled because</dt>
            <dd>{w.disabled_reason}</dd>
          </div>
        )}
      </dl>
      {canWrite && (
        <div class="actions wrap">
          <button type="button" onClick={sendTest} disabled={busy}>
            Send test event
          </button>
          <button type="button" class="button-secondary" onClick={toggle} disabled={busy}>
            {w.enabled ? "Disable" : "Enable"}
          </button>
          <button type="button" class="button-secondary" onClick={() => setConfirm("rotate")} disabled={busy}>
            Rotate secret
          </button>
          <button type="button" class="button-danger-quiet" onClick={() => setConfirm("delete")} disabled={busy}>
            Delete webhook
          </button>
        </div>
      )}
      <ErrorNote error={error} />
      {message && (
        <Notice>
          <p>{message}</p>
        </Notice>
      )}
      {secret && (
        <section class="card stack new-secret" aria-label="New signing secret">
          <SecretField label="Signing secret" value={secret} wrap />
          <p class="hint">Shown only this once.</p>
        </section>
      )}
      <div class="page-head">
        <h2>Delivery log</h2>
        <button type="button" class="button-secondary" onClick={() => (setPolls(0), log.reload(), hook.reload())}>
          Refresh
        </button>
      </div>
      <ErrorNote error={log.error} />
      {log.loading && !deliveries && <Loading what="deliveries" />}
      {deliveries && (
        <ListTable
          label="Delivery log"
          class="deliveries"
          columns={["Event", "State", "Attempts", "Status code", "Duration", "Response", "Created"]}
          actions={canWrite}
          rows={deliveries.results}
          empty={<>No deliveries yet. {canWrite ? "Send a test event to try the receiver." : ""}</>}
          row={(d) => <DeliveryRow key={d.uuid} d={d} canWrite={canWrite} onRedeliver={redeliver} />}
        />
      )}
      {deliveries && <Pager page={page} count={deliveries.count} pageSize={PAGE_SIZE} onPage={setPage} label="Deliveries" />}
      <ConfirmDialog
        open={confirm === "rotate"}
        title="Rotate the signing secret?"
        confirmLabel="Make new secret"
        busy={busy}
        onConfirm={rotate}
        onCancel={() => setConfirm(null)}
      >
        <p>A new secret is made and shown once. Update your receiver with it.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === "delete"}
        title="Delete this webhook?"
        confirmLabel="Delete"
        danger
        busy={busy}
        onConfirm={remove}
        onCancel={() => setConfirm(null)}
      >
        <p>No more events are sent to {w.url}. Its delivery log is deleted too.</p>
      </ConfirmDialog>
    </section>
  );
}
