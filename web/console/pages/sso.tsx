/**
 * Single sign-on on the sign-in page (DESIGN §15): the "Sign in with {provider}" button when the
 * server has a provider, a workspace's own provider's button when the page is opened as
 * `/console/login/?workspace={slug}` (the address its Settings show), and the explanation of an
 * `?sso_error=CODE` the callback sent back.
 */
import { useLocation } from "preact-iso";
import { api, apiPath } from "../api.ts";
import { useLoad } from "../components.tsx";

/** `GET auth/oidc/`. */
export type SignInOptions = { oidc: { provider_name: string } | null; password_sign_in: boolean };

/** The sign-in options; while loading (or if the request fails) password sign-in only. */
export function useSignInOptions(): SignInOptions {
  const load = useLoad(() => api<SignInOptions>("GET", apiPath`auth/oidc/`), []);
  return load.data ?? { oidc: null, password_sign_in: true };
}

/** `GET auth/oidc/workspaces/{workspace}/`: a workspace's own provider. */
export type WorkspaceSignInOption = { workspace_slug: string; provider_name: string; start_url: string };

/** The provider of the workspace named by the page's `?workspace=` (slug or uuid), or null. */
export function useWorkspaceSignInOption(): WorkspaceSignInOption | null {
  const workspace = useLocation().query.workspace ?? "";
  const load = useLoad(() => (workspace ? api<WorkspaceSignInOption>("GET", apiPath`auth/oidc/workspaces/${workspace}/`) : Promise.resolve(null)), [workspace]);
  return load.data ?? null;
}

/** What each refusal means to the person, and what to do about it. */
const MESSAGES: Record<string, string> = {
  OIDC_NOT_A_MEMBER: "You have no Earshot account yet. Ask an owner or admin of this Earshot to invite you, then sign in again.",
  OIDC_DOMAIN_NOT_ALLOWED: "Accounts of your email domain may not sign in here.",
  OIDC_EMAIL_UNVERIFIED: "Your identity provider has not verified your email address. Verify it there, then sign in again.",
  OIDC_NO_ROLE: "Your account at the identity provider is in no group that gives access to Earshot. Ask your administrator.",
  OIDC_ACCOUNT_DISABLED: "This Earshot account is disabled.",
  OIDC_ACCOUNT_NOT_LINKABLE:
    "An Earshot account with your email exists, but this workspace's provider may not sign in to it: it is not a member of this workspace, or it is linked to another identity there. Sign in with your password, or ask the workspace's owner for an invite.",
  OIDC_STATE_INVALID: "This sign-in was not started in this browser, or took longer than 10 minutes. Start again.",
  OIDC_PROVIDER_ERROR: "The identity provider did not sign you in (perhaps you cancelled). Start again.",
  OIDC_FAILED:
    "Single sign-on failed: the identity provider could not be reached or its answer did not pass the checks. The server's log says which; try again or tell the operator.",
  OIDC_NOT_CONFIGURED: "Single sign-on is not configured on this server.",
  RATE_LIMITED: "Too many sign-in attempts from your network. Wait a minute, then try again.",
};

/** The note for the callback's `?sso_error=`, or nothing. */
export function SsoError() {
  const code = useLocation().query.sso_error;
  if (!code) return null;
  return (
    <div class="note note-error" role="alert">
      <p>{MESSAGES[code] ?? `Single sign-on failed (${code.slice(0, 40)}).`}</p>
    </div>
  );
}

/**
 * The "Sign in with …" button; it opens `auth/oidc/start/` (the provider's page follows).
 * @param workspaceSlug a workspace's own provider (`?workspace=`); absent: the server's
 */
export function SsoButton({ providerName, workspaceSlug }: { providerName: string; workspaceSlug?: string }) {
  const next = useLocation().query.next;
  const start = () => {
    const query = new URLSearchParams();
    if (workspaceSlug) query.set("workspace", workspaceSlug);
    if (next?.startsWith("/console/")) query.set("next", next);
    const search = query.toString();
    location.assign(`/api/v1/auth/oidc/start/${search ? `?${search}` : ""}`);
  };
  return (
    <button type="button" class="sso-button" onClick={start}>
      Sign in with {providerName}
    </button>
  );
}
