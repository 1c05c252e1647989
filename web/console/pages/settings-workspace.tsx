/**
 * The "Workspace" section of Settings (DESIGN §10): name, dedicated host, plan and limits; an
 * owner edits them through `PATCH workspace/`.
 */
import { api, apiPath, refreshSession } from "../api.ts";
import { ActionOutcome, ErrorNote, Loading, useAction, useLoad } from "../components.tsx";
import { can } from "../state.ts";
import type { Workspace } from "./keys.tsx";

/** The section (`#ws-title`). */
export function WorkspaceSection() {
  const ws = useLoad(() => api<Workspace>("GET", apiPath`workspace/`), []);
  const action = useAction();
  const editable = can("workspace:write");
  const w = ws.data;
  // The default host is `{public URL}/w/{slug}`; a dedicated host is an origin of its own.
  const dedicated = w && !w.host.endsWith(`/w/${w.slug}`) ? w.host : "";
  const save = (e: Event) => {
    e.preventDefault();
    if (!w) return;
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const links = String(f.get("links") ?? "").trim();
    const host = String(f.get("host") ?? "").trim();
    const limits = { links: links === "" ? null : Number(links), requests_per_minute: Number(f.get("rpm")) };
    const body: Record<string, unknown> = {};
    if (String(f.get("name")).trim() !== w.name) body.name = String(f.get("name")).trim();
    if (host !== dedicated) body.host = host === "" ? null : host;
    if (f.get("plan") !== w.plan) body.plan = f.get("plan");
    if (limits.links !== w.limits.links || limits.requests_per_minute !== w.limits.requests_per_minute) body.limits = limits;
    return action.run("Workspace saved.", async () => {
      await api("PATCH", apiPath`workspace/`, body);
      ws.reload();
      await refreshSession(); // the header shows the workspace's name
    });
  };
  return (
    <section class="card stack" aria-labelledby="ws-title">
      <h2 id="ws-title">Workspace</h2>
      <ErrorNote error={ws.error} />
      {!w && !ws.error && <Loading what="the workspace" />}
      {w && !editable && (
        <dl class="facts">
          <div>
            <dt>Name</dt>
            <dd>{w.name}</dd>
          </div>
          <div>
            <dt>Links served at</dt>
            <dd class="mono small">{w.host}/i/…</dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd>{w.plan}</dd>
          </div>
          <div>
            <dt>Links</dt>
            <dd>
              {w.usage.links} of {w.limits.links ?? "unlimited"}
            </dd>
          </div>
          <div>
            <dt>Requests per minute</dt>
            <dd>{w.limits.requests_per_minute}</dd>
          </div>
        </dl>
      )}
      {w && editable && (
        <form class="stack" onSubmit={save}>
          <div class="grid-2">
            <div class="field">
              <label for="ws-name">Workspace name</label>
              <input id="ws-name" name="name" required defaultValue={w.name} />
            </div>
            <div class="field">
              <label for="ws-host">Dedicated host</label>
              <input id="ws-host" name="host" type="url" defaultValue={dedicated} placeholder="https://feedback.example.lan" aria-describedby="ws-host-hint" />
              <p class="hint" id="ws-host-hint">
                An origin of its own for this workspace's links. Links are now at <span class="mono">{w.host}/i/&lt;slug&gt;</span>.
              </p>
            </div>
            <div class="field">
              <label for="ws-plan">Plan</label>
              <select id="ws-plan" name="plan">
                {["free", "pro", "enterprise"].map((p) => (
                  <option key={p} value={p} selected={p === w.plan}>
                    {p}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="ws-links">Links limit</label>
              <input
                id="ws-links"
                name="links"
                type="number"
                min={0}
                defaultValue={w.limits.links === null ? "" : String(w.limits.links)}
                aria-describedby="ws-links-hint"
              />
              <p class="hint" id="ws-links-hint">
                Empty means unlimited. {w.usage.links} in use.
              </p>
            </div>
            <div class="field">
              <label for="ws-rpm">Requests per minute</label>
              <input id="ws-rpm" name="rpm" type="number" min={1} required defaultValue={String(w.limits.requests_per_minute)} />
            </div>
          </div>
          <ActionOutcome action={action} />
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Save workspace
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
