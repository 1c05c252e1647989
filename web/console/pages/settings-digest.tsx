/**
 * The "Email digest" choice in Settings › Your account (issue 28; docs/console.md "Email
 * digests"): off, daily or weekly for the current workspace, saved on change.
 */
import { api, apiPath } from "../api.ts";
import { ActionOutcome, ErrorNote, useAction, useLoad } from "../components.tsx";

type Notifications = { workspace_uuid: string; digest: "off" | "daily" | "weekly"; mail_configured: boolean };

/** The select and what it says about mail. */
export function DigestField() {
  const load = useLoad(() => api<Notifications>("GET", apiPath`auth/notifications/`), []);
  const action = useAction();
  const save = (e: Event) => {
    const digest = (e.currentTarget as HTMLSelectElement).value;
    return action.run("Email digest saved.", async () => {
      await api("PUT", apiPath`auth/notifications/`, { digest });
      load.reload();
    });
  };
  if (!load.data) return <ErrorNote error={load.error} />;
  return (
    <div class="stack">
      <div class="field">
        <label for="me-digest">Email digest</label>
        <select id="me-digest" value={load.data.digest} onChange={save} disabled={action.busy} aria-describedby="me-digest-hint">
          <option value="off">Off</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly (Mondays)</option>
        </select>
        <p class="hint" id="me-digest-hint">
          {load.data.mail_configured
            ? "At 07:00 UTC: this workspace's responses, completion rate, NPS, sentiment and themes of the day (or week) before."
            : "Mail is not configured on this server, so no digest is sent."}
        </p>
      </div>
      <ActionOutcome action={action} />
    </div>
  );
}
