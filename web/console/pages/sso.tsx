/**
 * Single sign-on on the sign-in page (DESIGN §15): the "Sign in with {provider}" button when the
 * server has a provider, and the explanation of an `?sso_error=CODE` the callback sent back.
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

/** What each refusal means to the person, and what to do about it. */
const MESSAGES: Record<string, string> = {
  OIDC_NOT_A_MEMBER: "You have no Earshot account yet. Ask an owner or admin of this Earshot to invite you, then sign in again.",
  OIDC_DOMAIN_NOT_ALLOWED: "Accounts of your email domain may not sign in here.",
  OIDC_EMAIL_UNVERIFIED: "Your identity provider has not verified your email address. Verify it there, then sign in again.",
  OIDC_NO_ROLE: "Your account at the identity provider is in no group that gives access to Earshot. Ask your administrator.",
  OIDC_ACCOUNT_DISABLED: "This Earshot account is disabled.",
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

/** The "Sign in with …" button; it opens `auth/oidc/start/` (the provider's page follows). */
export function SsoButton({ providerName }: { providerName: string }) {
  const next = useLocation().query.next;
  const start = () => {
    const query = next && next.startsWith("/console/") ? `?next=${encodeURIComponent(next)}` : "";
    location.assign(`/api/v1/auth/oidc/start/${query}`);
  };
  return (
    <button type="button" class="sso-button" onClick={start}>
      Sign in with {providerName}
    </button>
  );
}
