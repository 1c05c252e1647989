/**
 * The second sign-in step (issue 28; docs/console.md "Two-factor authentication"): after a correct
 * password the API answers TWO_FACTOR_REQUIRED with a ticket, and this form sends it with the
 * "Authentication code" — or, after "Use a recovery code", a recovery code. An expired ticket
 * goes back to the password step. After any sign-in, a member of a workspace that requires two-
 * factor authentication and has none is taken to its setup page.
 */
import { useState } from "preact/hooks";
import { api, apiPath, type ApiError } from "../api.ts";
import { ErrorNote, toApiError } from "../components.tsx";
import type { Session } from "../state.ts";

/** Where to go after a session started: the setup page when the workspace requires a second factor the user lacks. */
export async function landingAfterSignIn(next: string): Promise<string> {
  try {
    const tf = await api<{ enabled: boolean; required_by_workspace: boolean }>("GET", apiPath`auth/two-factor/`);
    if (tf.required_by_workspace && !tf.enabled) return "/console/account/two-factor/";
  } catch {
    // The status is a convenience: the API refuses other pages anyway (TWO_FACTOR_ENROLMENT_REQUIRED).
  }
  return next;
}

/** The ticket of a TWO_FACTOR_REQUIRED refusal, or null. */
export function ticketOf(err: ApiError): string | null {
  return err.code === "TWO_FACTOR_REQUIRED" && typeof err.problem.ticket === "string" ? err.problem.ticket : null;
}

/**
 * The code step: "Authentication code" (or "Recovery code"), "Verify", "Use a recovery code".
 * `ticket` "" sends none: after single sign-on the API takes it from its HttpOnly cookie.
 */
export function SecondFactorStep({ ticket, onSession, onRestart }: { ticket: string; onSession: (s: Session) => void; onRestart: (e: ApiError) => void }) {
  const [recovery, setRecovery] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.currentTarget as HTMLFormElement).get("code") ?? "").trim();
    setBusy(true);
    setError(null);
    try {
      onSession(
        await api<Session>("POST", apiPath`auth/two-factor/`, { ...(ticket ? { ticket } : {}), ...(recovery ? { recovery_code: value } : { code: value }) }),
      );
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.code === "TWO_FACTOR_TICKET_INVALID") onRestart(apiError);
      else setError(apiError);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={onSubmit} class="stack" key={recovery ? "recovery" : "code"}>
      <p>
        {recovery
          ? "Enter one of the recovery codes you saved when you set up two-factor authentication. Each works once."
          : "Open your authentication app and enter the 6-digit code it shows for Earshot."}
      </p>
      <div class="field">
        <label for="second-factor">{recovery ? "Recovery code" : "Authentication code"}</label>
        <input
          id="second-factor"
          name="code"
          required
          autoFocus
          autoComplete="one-time-code"
          inputMode={recovery ? "text" : "numeric"}
          pattern={recovery ? undefined : "[0-9 ]{6,7}"}
          maxLength={recovery ? 40 : 7}
          spellcheck={false}
        />
      </div>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        Verify
      </button>
      <button type="button" class="button-secondary" onClick={() => setRecovery(!recovery)}>
        {recovery ? "Use an authentication code" : "Use a recovery code"}
      </button>
    </form>
  );
}
