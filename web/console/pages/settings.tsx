/**
 * Settings (DESIGN §10): the workspace (name, dedicated host, plan and limits; editable by an
 * owner through `PATCH workspace/`), members and invites, the audit log, the installed models
 * (`GET /healthz`) and the operator's own account (name, password).
 */
import { useState } from "preact/hooks";
import { api, apiPath, refreshSession } from "../api.ts";
import { ErrorNote, Loading, Notice, useAction, useLoad, TableWrap } from "../components.tsx";
import { can, session, type Session } from "../state.ts";
import type { Workspace } from "./keys.tsx";
import { MembersSection } from "./members.tsx";
import { AuditSection } from "./audit.tsx";
import { RetentionSection } from "./retention.tsx";
import { MailSection } from "./mail.tsx";

function WorkspaceSection() {
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
          <ErrorNote error={action.error} />
          {action.message && (
            <Notice>
              <p>{action.message}</p>
            </Notice>
          )}
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

type Health = { status: string; models?: Record<string, { id: string; status: string }>; jobs?: { pending: number; running: number; failed: number } };

function ModelsSection() {
  const health = useLoad(() => api<Health>("GET", apiPath`/healthz`), []);
  const h = health.data;
  return (
    <section class="card stack" aria-labelledby="models-title">
      <h2 id="models-title">Models</h2>
      <ErrorNote error={health.error} />
      {!h && !health.error && <Loading what="models" />}
      {h && !h.models && <p class="muted">This server does not report its models.</p>}
      {h?.models && (
        <TableWrap label="Installed models">
          <table>
            <caption class="visually-hidden">Installed models</caption>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(h.models).map(([task, m]) => (
                <tr key={task}>
                  <td>{task === "asr" ? "Transcription" : task === "sentiment" ? "Sentiment" : task}</td>
                  <td class="mono small">{m.id}</td>
                  <td>
                    <span class={`pill ${m.status === "installed" ? "pill-on" : "pill-failed"}`}>{m.status}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {h?.models && Object.values(h.models).some((m) => m.status !== "installed") && (
        <p class="hint">
          Install missing models on the server with <code>earshot models fetch</code>.
        </p>
      )}
      {h?.jobs && (
        <p class="muted small">
          Jobs: {h.jobs.pending} pending, {h.jobs.running} running, {h.jobs.failed} failed.
        </p>
      )}
    </section>
  );
}

function AccountSection() {
  const s = session.value!;
  const nameAction = useAction();
  const pwAction = useAction();
  const saveName = (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get("name") ?? "").trim();
    return nameAction.run("Name saved.", async () => {
      session.value = await api<Session>("PATCH", apiPath`auth/me/`, { name });
    });
  };
  const savePassword = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    return pwAction.run("Password changed. Your other sessions are signed out.", async () => {
      await api("POST", apiPath`auth/me/password/`, { current_password: String(f.get("current") ?? ""), new_password: String(f.get("new") ?? "") });
      form.reset();
    });
  };
  return (
    <section class="card stack" aria-labelledby="account-title">
      <h2 id="account-title">Your account</h2>
      <p class="muted">
        Signed in as <strong>{s.user.email}</strong>, {s.role} of this workspace.
      </p>
      <form class="stack" onSubmit={saveName}>
        <div class="field">
          <label for="me-name">Your name</label>
          <input id="me-name" name="name" required defaultValue={s.user.name} autoComplete="name" />
        </div>
        <ErrorNote error={nameAction.error} />
        {nameAction.message && (
          <Notice>
            <p>{nameAction.message}</p>
          </Notice>
        )}
        <div class="actions">
          <button type="submit" disabled={nameAction.busy}>
            Save name
          </button>
        </div>
      </form>
      <form class="stack" onSubmit={savePassword}>
        <h3>Change password</h3>
        <input type="text" name="username" autoComplete="username" value={s.user.email} hidden readOnly />
        <div class="grid-2">
          <div class="field">
            <label for="me-current">Current password</label>
            <input id="me-current" name="current" type="password" required autoComplete="current-password" />
          </div>
          <div class="field">
            <label for="me-new">New password</label>
            <input id="me-new" name="new" type="password" required minLength={12} autoComplete="new-password" aria-describedby="me-new-hint" />
            <p class="hint" id="me-new-hint">
              At least 12 characters.
            </p>
          </div>
        </div>
        <ErrorNote error={pwAction.error} />
        {pwAction.message && (
          <Notice>
            <p>{pwAction.message}</p>
          </Notice>
        )}
        <div class="actions">
          <button type="submit" disabled={pwAction.busy}>
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}

/** `/console/settings/`. */
export function SettingsPage() {
  return (
    <section class="stack">
      <h1>Settings</h1>
      <nav class="toc" aria-label="Settings sections">
        <a href="#ws-title">Workspace</a>
        <a href="#retention-title">Retention</a>
        {can("members:read") && <a href="#members-title">Members</a>}
        {can("audit:read") && <a href="#audit-title">Audit log</a>}
        {can("members:read") && <a href="#mail-title">Mail</a>}
        <a href="#models-title">Models</a>
        <a href="#account-title">Your account</a>
      </nav>
      <WorkspaceSection />
      <RetentionSection />
      {can("members:read") && <MembersSection />}
      {can("audit:read") && <AuditSection />}
      {can("members:read") && <MailSection />}
      <ModelsSection />
      <AccountSection />
    </section>
  );
}
