/**
 * API keys (the specification's key-management interface, DESIGN §5 and §10): the three totals
 * from `GET workspace/`, the paginated table of active keys, creating a key with a name and
 * scopes (at most the operator's own) shown once with Copy and a ready `curl`, and revoking a
 * key after confirmation.
 */
import { useState } from "preact/hooks";
import { api, apiPath, paged, type Page } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, Notice, Pager, SecretField, Time, toApiError, useLoad } from "../components.tsx";
import { ListTable } from "../list-table.tsx";
import type { ApiError } from "../api.ts";
import { ADMIN_SCOPES, can, scopes, SPEC_SCOPES } from "../state.ts";

export type Token = { uuid: string; name: string; masked_key: string; scopes: string[]; date_created: string; last_used_at: string | null };
export type Workspace = {
  uuid: string;
  name: string;
  slug: string;
  plan: string;
  host: string;
  limits: { links: number | null; requests_per_minute: number };
  usage: { links: number; api_calls_today: number; keys_created: number; keys_active: number };
  date_created: string;
};

const PAGE_SIZE = 20;

function Figure({ label, value }: { label: string; value: number | undefined }) {
  return (
    <figure class="figure card">
      <figcaption>{label}</figcaption>
      <p class="figure-value">{value === undefined ? "…" : value.toLocaleString()}</p>
    </figure>
  );
}

function CreateKeyForm({ onCreated, onCancel }: { onCreated: (t: Token & { key: string }) => void; onCancel: () => void }) {
  const own = [...SPEC_SCOPES, ...ADMIN_SCOPES].filter((s) => scopes.value.has(s));
  const [checked, setChecked] = useState<Set<string>>(() => new Set(own.filter((s) => (SPEC_SCOPES as readonly string[]).includes(s))));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const toggle = (s: string, on: boolean) => {
    const next = new Set(checked);
    if (on) next.add(s);
    else next.delete(s);
    setChecked(next);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get("name") ?? "");
    setBusy(true);
    setError(null);
    try {
      onCreated(await api<Token & { key: string }>("POST", apiPath`tokens/`, { name, scopes: own.filter((s) => checked.has(s)) }));
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <div class="field">
        <label for="key-name">Name</label>
        <input id="key-name" name="name" required maxLength={200} aria-describedby="key-name-hint" autoFocus />
        <p class="hint" id="key-name-hint">
          Say where the key is used, e.g. "CI" or "CRM sync".
        </p>
      </div>
      <fieldset class="scopes">
        <legend>Scopes</legend>
        <p class="hint">A key can have at most the scopes your role has.</p>
        <div class="scope-grid">
          {own.map((s) => (
            <label key={s} class="check">
              <input type="checkbox" checked={checked.has(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} />
              <span class="mono">{s}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || checked.size === 0}>
          Create
        </button>
        <button type="button" class="button-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function NewKey({ token, onDone }: { token: Token & { key: string }; onDone: () => void }) {
  const curl = `curl -H "Authorization: Bearer ${token.key}" ${location.origin}/api/v1/workspace/`;
  return (
    <section class="card stack new-secret" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Key "{token.name}" created</h2>
      <Notice>
        <p>Copy the key now: it is shown only this once. Earshot keeps only a hash of it.</p>
      </Notice>
      <SecretField label="New API key" value={token.key} wrap />
      <SecretField label="Try it with curl" value={curl} multiline />
      <div class="actions">
        <button type="button" class="button-secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

/** `/console/keys/`. */
export function KeysPage() {
  const [page, setPage] = useState(1);
  const workspace = useLoad(() => api<Workspace>("GET", apiPath`workspace/`), []);
  const tokens = useLoad(() => api<Page<Token>>("GET", paged(apiPath`tokens/`, page, PAGE_SIZE)), [page]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(Token & { key: string }) | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState("");
  const canWrite = can("tokens:write");

  const refresh = () => {
    workspace.reload();
    tokens.reload();
  };
  const revoke = async () => {
    if (!revoking) return;
    setBusy(true);
    setError(null);
    try {
      await api("DELETE", apiPath`tokens/${revoking.uuid}/`);
      setMessage(`Key "${revoking.name}" revoked. It stopped working at once.`);
      if (tokens.data && tokens.data.results.length === 1 && page > 1) setPage(page - 1);
      refresh();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  };
  const u = workspace.data?.usage;
  const list = tokens.data;
  return (
    <section class="stack">
      <div class="page-head">
        <h1>API keys</h1>
        {canWrite && !creating && !created && (
          <button type="button" onClick={() => (setCreating(true), setMessage(""))}>
            Create key
          </button>
        )}
      </div>
      <p class="lead">Keys let scripts and other services use the Earshot API for this workspace.</p>
      <div class="figures">
        <Figure label="Keys created" value={u?.keys_created} />
        <Figure label="Active keys" value={u?.keys_active} />
        <Figure label="API calls today" value={u?.api_calls_today} />
      </div>
      <ErrorNote error={workspace.error} />
      {creating && (
        <CreateKeyForm
          onCancel={() => setCreating(false)}
          onCreated={(t) => {
            setCreating(false);
            setCreated(t);
            setPage(1);
            refresh();
          }}
        />
      )}
      {created && <NewKey token={created} onDone={() => setCreated(null)} />}
      {message && (
        <Notice>
          <p>{message}</p>
        </Notice>
      )}
      <ErrorNote error={error ?? tokens.error} />
      {tokens.loading && !list && <Loading what="keys" />}
      {list && (
        <ListTable
          label="Active API keys"
          class="stack-table"
          columns={["Name", "Key", "Scopes", "Created", "Last used"]}
          actions={canWrite}
          rows={list.results}
          empty={<>No active keys. {canWrite ? "Create one to use the API." : ""}</>}
          row={(t) => (
            <tr key={t.uuid}>
              <td class="strong" data-label="Name">
                {t.name}
              </td>
              <td data-label="Key">
                <code>{t.masked_key}</code>
              </td>
              <td data-label="Scopes">
                <ul class="tags">
                  {t.scopes.map((s) => (
                    <li key={s}>{s}</li>
                  ))}
                </ul>
              </td>
              <td data-label="Created">
                <Time iso={t.date_created} mode="date" />
              </td>
              <td data-label="Last used">
                <Time iso={t.last_used_at} />
              </td>
              {canWrite && (
                <td class="row-actions">
                  <button type="button" class="button-danger-quiet" aria-label={`Revoke ${t.name}`} onClick={() => setRevoking(t)}>
                    Revoke
                  </button>
                </td>
              )}
            </tr>
          )}
        />
      )}
      {list && <Pager page={page} count={list.count} pageSize={PAGE_SIZE} onPage={setPage} label="API keys" />}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke "${revoking?.name ?? ""}"?`}
        confirmLabel="Revoke key"
        danger
        busy={busy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>Requests with this key fail from now on, including ones already on their way. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
