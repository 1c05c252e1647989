/**
 * Settings (DESIGN §10): the workspace (name, dedicated host, plan and limits; editable by an
 * owner through `PATCH workspace/`), members and invites, the audit log, the installed models
 * (`GET /healthz`), the operator's own account (name, password, two-factor authentication), the
 * origins allowed to embed links, the workspace's two-factor requirement and its own single
 * sign-on (owners); each section is its own component (settings-workspace.tsx, retention.tsx,
 * embed-origins.tsx, two-factor.tsx, workspace-sso.tsx, members.tsx, audit.tsx, settings-account.tsx).
 */
import { api, apiPath } from "../api.ts";
import { ErrorNote, Loading, useLoad, TableWrap } from "../components.tsx";
import { can } from "../state.ts";
import { MembersSection } from "./members.tsx";
import { AuditSection } from "./audit.tsx";
import { RetentionSection } from "./retention.tsx";
import { AccountSection } from "./settings-account.tsx";
import { WorkspaceSection } from "./settings-workspace.tsx";
import { EmbedOriginsSection } from "./embed-origins.tsx";
import { TwoFactorRequirementSection, TwoFactorSection } from "./two-factor.tsx";
import { MailSection } from "./mail.tsx";
import { WorkspaceSsoSection } from "./workspace-sso.tsx";

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

/** `/console/settings/`. */
export function SettingsPage() {
  return (
    <section class="stack">
      <h1>Settings</h1>
      <nav class="toc" aria-label="Settings sections">
        <a href="#ws-title">Workspace</a>
        <a href="#retention-title">Retention</a>
        <a href="#embed-title">Embedding</a>
        {can("members:write") && <a href="#tf-require-title">Sign-in security</a>}
        {can("workspace:write") && <a href="#sso-title">Single sign-on</a>}
        {can("members:read") && <a href="#members-title">Members</a>}
        {can("audit:read") && <a href="#audit-title">Audit log</a>}
        {can("members:read") && <a href="#mail-title">Mail</a>}
        <a href="#models-title">Models</a>
        <a href="#account-title">Your account</a>
        <a href="#two-factor-title">Two-factor authentication</a>
      </nav>
      <WorkspaceSection />
      <RetentionSection />
      <EmbedOriginsSection />
      {can("members:write") && <TwoFactorRequirementSection />}
      {can("workspace:write") && <WorkspaceSsoSection />}
      {can("members:read") && <MembersSection />}
      {can("audit:read") && <AuditSection />}
      {can("members:read") && <MailSection />}
      <ModelsSection />
      <AccountSection />
      <TwoFactorSection />
    </section>
  );
}
