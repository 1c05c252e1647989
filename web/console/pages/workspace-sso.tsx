/**
 * The workspace's own single sign-on in Settings (issue 28; docs/console.md "A workspace's own
 * single sign-on"), for owners: the provider's issuer, client, allowed email domains (required),
 * role mapping and joining rule (`PUT workspace/sso/`, which loads the issuer's discovery document
 * before saving), "Test connection" (`POST workspace/sso/check/`, the same load again), the
 * redirect URI to register and the sign-in address to share, and "Remove".
 * The client secret is write-only: the form says whether one is stored.
 */
import { useState } from "preact/hooks";
import type { WorkspaceSsoView } from "../../../src/modules/oidc/model.ts";
import { api, apiPath, ApiError } from "../api.ts";
import { ActionOutcome, ConfirmDialog, ErrorNote, Loading, SecretField, useAction, useLoad } from "../components.tsx";

const ROLES = ["admin", "member", "viewer"] as const;

/** `value=role, …` (the server's EARSHOT_OIDC_ROLE_MAP format) → the API's `role_map`. */
function parseRoleMap(text: string): { value: string; role: string }[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const i = pair.lastIndexOf("=");
      return { value: pair.slice(0, i).trim(), role: pair.slice(i + 1).trim() };
    });
}

const formatRoleMap = (map: WorkspaceSsoView["role_map"]) => map.map((m) => `${m.value}=${m.role}`).join(", ");

/** The "Single sign-on" section of Settings (owners: `workspace:write`). */
export function WorkspaceSsoSection() {
  const load = useLoad(async () => {
    try {
      return await api<WorkspaceSsoView>("GET", apiPath`workspace/sso/`);
    } catch (err) {
      // None yet: an empty form.
      if (err instanceof ApiError && err.code === "OIDC_NOT_CONFIGURED") return null;
      throw err;
    }
  }, []);
  const action = useAction();
  const [saved, setSaved] = useState<WorkspaceSsoView | null | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const current = saved === undefined ? load.data : saved;
  const issuerFailed = action.error?.code === "OIDC_DISCOVERY_FAILED";

  const save = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const text = (k: string) => String(f.get(k) ?? "").trim();
    const secret = String(f.get("client_secret") ?? "");
    const roleClaim = text("role_claim");
    const body = {
      provider_name: text("provider_name"),
      issuer: text("issuer"),
      client_id: text("client_id"),
      // Empty keeps the stored secret (never shown); a new one replaces it.
      ...(secret ? { client_secret: secret } : current ? {} : { client_secret: null }),
      allowed_domains: text("allowed_domains")
        .split(/[\s,]+/)
        .filter(Boolean),
      role_claim: roleClaim || null,
      role_map: roleClaim ? parseRoleMap(text("role_map")) : [],
      default_role: text("default_role"),
      auto_join: f.get("auto_join") === "on",
      enabled: f.get("enabled") === "on",
    };
    return action.run("Saved: the provider's discovery document loaded.", async () => {
      setSaved(await api<WorkspaceSsoView>("PUT", apiPath`workspace/sso/`, body));
    });
  };
  const check = () =>
    action.run("Connection tested: the provider's discovery document loaded.", async () => {
      await api("POST", apiPath`workspace/sso/check/`, {});
    });
  const remove = () =>
    action.run("Single sign-on of this workspace removed.", async () => {
      await api("DELETE", apiPath`workspace/sso/`);
      setConfirming(false);
      setSaved(null);
    });

  return (
    <section class="card stack" aria-labelledby="sso-title">
      <h2 id="sso-title">Single sign-on</h2>
      <p class="hint">
        Members of this workspace can sign in through your own OpenID Connect provider. Such a sign-in reaches this workspace only, and only for verified emails
        of the domains you list.
      </p>
      {load.loading && <Loading what="single sign-on" />}
      <ErrorNote error={load.error} />
      {!load.loading && !load.error && (
        <form class="stack" onSubmit={save} key={current?.date_updated ?? "new"}>
          <div class="field">
            <label for="sso-name">Provider name</label>
            <input id="sso-name" name="provider_name" required maxLength={60} defaultValue={current?.provider_name ?? ""} aria-describedby="sso-name-hint" />
            <p class="hint" id="sso-name-hint">
              The button reads “Sign in with …” this name.
            </p>
          </div>
          <div class="field">
            <label for="sso-issuer">Issuer URL</label>
            <input
              id="sso-issuer"
              name="issuer"
              type="url"
              required
              defaultValue={current?.issuer ?? ""}
              placeholder="https://id.example.com/realms/acme"
              aria-invalid={issuerFailed || undefined}
              aria-describedby={issuerFailed ? "sso-issuer-error" : undefined}
            />
            {issuerFailed && (
              // At the field the failure is about; the message itself shows above the buttons.
              <p class="field-error" id="sso-issuer-error">
                Check this URL: Earshot reads <code>/.well-known/openid-configuration</code> under it.
              </p>
            )}
          </div>
          <div class="field">
            <label for="sso-client">Client ID</label>
            <input id="sso-client" name="client_id" required defaultValue={current?.client_id ?? ""} />
          </div>
          <div class="field">
            <label for="sso-secret">Client secret</label>
            <input id="sso-secret" name="client_secret" type="password" autoComplete="off" aria-describedby="sso-secret-hint" />
            <p class="hint" id="sso-secret-hint">
              {current?.client_secret_set ? "A secret is stored (it is never shown). Leave empty to keep it." : "Leave empty for a public client (PKCE only)."}
            </p>
          </div>
          <div class="field">
            <label for="sso-domains">Allowed email domains</label>
            <input
              id="sso-domains"
              name="allowed_domains"
              required
              defaultValue={current?.allowed_domains.join(", ") ?? ""}
              aria-describedby="sso-domains-hint"
            />
            <p class="hint" id="sso-domains-hint">
              Comma-separated, e.g. <code>example.com</code>. Required.
            </p>
          </div>
          <div class="field">
            <label for="sso-claim">Role claim</label>
            <input id="sso-claim" name="role_claim" defaultValue={current?.role_claim ?? ""} placeholder="groups" aria-describedby="sso-claim-hint" />
            <p class="hint" id="sso-claim-hint">
              Optional. The claim holding groups, mapped below at every sign-in.
            </p>
          </div>
          <div class="field">
            <label for="sso-map">Role mapping</label>
            <input
              id="sso-map"
              name="role_map"
              defaultValue={current ? formatRoleMap(current.role_map) : ""}
              placeholder="earshot-admins=admin, earshot=member"
              aria-describedby="sso-map-hint"
            />
            <p class="hint" id="sso-map-hint">
              <code>group=role</code> pairs; roles admin, member or viewer (never owner).
            </p>
          </div>
          <div class="field">
            <label for="sso-default-role">Role of new members</label>
            <select id="sso-default-role" name="default_role">
              {ROLES.map((r) => (
                // `selected` (not the select's defaultValue, which Preact does not apply to a select).
                <option key={r} value={r} selected={r === (current?.default_role ?? "member")}>
                  {r}
                </option>
              ))}
            </select>
          </div>
          <label class="check">
            <input type="checkbox" name="auto_join" defaultChecked={current?.auto_join ?? false} />
            Let new people of these domains join this workspace (otherwise invite-only)
          </label>
          <label class="check">
            <input type="checkbox" name="enabled" defaultChecked={current?.enabled ?? true} />
            Enabled
          </label>
          <ActionOutcome action={action} />
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              {action.busy ? "Checking…" : "Save single sign-on"}
            </button>
            {current && (
              <button type="button" class="button-secondary" disabled={action.busy} onClick={check}>
                Test connection
              </button>
            )}
            {current && (
              // Quiet and apart from Save: removing is rare and confirmed (as Delete elsewhere).
              <button type="button" class="button-danger-quiet actions-end" onClick={() => setConfirming(true)}>
                Remove single sign-on
              </button>
            )}
          </div>
        </form>
      )}
      {current && (
        <>
          <SecretField label="Redirect URI to register at the provider" value={current.redirect_uri} wrap />
          <SecretField label="Sign-in address for members" value={current.sign_in_url} wrap />
          <p class="hint">Test it in a private window: signing in here replaces your own session.</p>
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title="Remove single sign-on?"
        confirmLabel="Remove"
        danger
        busy={action.busy}
        onConfirm={remove}
        onCancel={() => setConfirming(false)}
      >
        <p>Members signed in through it are signed out. Accounts and memberships stay.</p>
      </ConfirmDialog>
    </section>
  );
}
