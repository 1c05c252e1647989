/**
 * Pages for people who are not signed in (DESIGN §10): sign-in, first-start setup, accepting an
 * invite and setting a new password from a reset URL. Each ends with a session (or a link to
 * sign in), so the app frame takes over.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, apiPath, type ApiError } from "../api.ts";
import { ErrorNote, Notice, toApiError, useLoad, Loading } from "../components.tsx";
import { session, type Session } from "../state.ts";
import { SecondFactorStep, landingAfterSignIn, ticketOf } from "./two-factor-sign-in.tsx";
import { SsoButton, SsoError, useSignInOptions, useWorkspaceSignInOption } from "./sso.tsx";

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

function AuthCard({ title, intro, children }: { title: string; intro?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="card auth-card">
      <p class="brand brand-large" aria-hidden="true">
        Earshot
      </p>
      <h1>{title}</h1>
      {intro && <div class="intro">{intro}</div>}
      {children}
    </section>
  );
}

/** Explains the transport rule when the server refused plain HTTP (403 HTTPS_REQUIRED). */
function HttpsNote({ error }: { error: ApiError | null }) {
  const insecure = location.protocol === "http:" && !LOOPBACK.test(location.hostname);
  if (error?.code !== "HTTPS_REQUIRED" && !insecure) return null;
  return (
    <div class={`note ${error?.code === "HTTPS_REQUIRED" ? "note-error" : "note-warn"}`} role={error ? "alert" : undefined}>
      <p>
        <strong>Sign-in needs HTTPS.</strong> This page was opened over plain HTTP, so your password and session would travel unencrypted. Open the console
        through an <code>https://</code> address (a reverse proxy with TLS), or from the server itself at <code>http://localhost</code>.
      </p>
    </div>
  );
}

function PasswordField({ id, label, autoComplete, hint }: { id: string; label: string; autoComplete: string; hint?: boolean }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={id}
        type="password"
        required
        minLength={hint ? 12 : undefined}
        autoComplete={autoComplete}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          At least 12 characters.
        </p>
      )}
    </div>
  );
}

/**
 * Runs a form's submit as one API call that yields a session, then opens `?next=` or Links. A
 * TWO_FACTOR_REQUIRED answer keeps its ticket: the page then shows the code step (`secondStep`).
 * With `ssoStep`, `?two_factor=1` opens the code step directly: single sign-on sent the browser
 * here with the ticket in an HttpOnly cookie the API reads (ticket "" = the cookie's).
 */
function useSessionSubmit(call: (form: FormData) => Promise<Session>, opts: { ssoStep?: boolean } = {}) {
  const { route, query } = useLocation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [ticket, setTicket] = useState<string | null>(opts.ssoStep && query.two_factor === "1" ? "" : null);
  const signedIn = async (s: Session) => {
    const next = query.next;
    const target = await landingAfterSignIn(next && next.startsWith("/console/") && !next.startsWith("/console/login") ? next : "/console/links/");
    session.value = s;
    route(target, true);
  };
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signedIn(await call(new FormData(e.currentTarget as HTMLFormElement)));
    } catch (err) {
      const apiError = toApiError(err);
      setTicket(ticketOf(apiError));
      if (!ticketOf(apiError)) setError(apiError);
      setBusy(false);
    }
  };
  const secondStep = ticket !== null && (
    <SecondFactorStep
      ticket={ticket}
      onSession={signedIn}
      onRestart={(e) => {
        setTicket(null);
        setError(e);
        // Off `?two_factor=1`, so that a reload shows the sign-in form, not a dead code step.
        if (query.two_factor) route("/console/login/", true);
      }}
    />
  );
  return { busy, error, onSubmit, secondStep };
}

const str = (f: FormData, k: string) => String(f.get(k) ?? "");

/** `/console/login/`: "Email", "Password", "Sign in". */
export function LoginPage() {
  const { busy, error, onSubmit, secondStep } = useSessionSubmit(
    (f) => api<Session>("POST", apiPath`auth/login/`, { email: str(f, "email"), password: str(f, "password") }),
    { ssoStep: true },
  );
  // Single sign-on (pages/sso.tsx): the provider's button above the form, or instead of it.
  const options = useSignInOptions();
  const workspaceOption = useWorkspaceSignInOption();
  if (secondStep) return <AuthCard title="Two-factor authentication">{secondStep}</AuthCard>;
  const anySso = !!options.oidc || !!workspaceOption;
  return (
    <AuthCard title="Sign in">
      <HttpsNote error={error} />
      <SsoError />
      {anySso && (
        <div class="stack">
          {workspaceOption && <SsoButton providerName={workspaceOption.provider_name} workspaceSlug={workspaceOption.workspace_slug} />}
          {options.oidc && <SsoButton providerName={options.oidc.provider_name} />}
        </div>
      )}
      {anySso && options.password_sign_in && <p class="muted small auth-or">or with your email and password</p>}
      {options.password_sign_in && (
        <form onSubmit={onSubmit} class="stack">
          <div class="field">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" required autoComplete="username" />
          </div>
          <PasswordField id="password" label="Password" autoComplete="current-password" />
          {error?.code !== "HTTPS_REQUIRED" && <ErrorNote error={error} />}
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {options.password_sign_in && (
        <p class="muted small">
          Forgot your password? An operator can print a reset link with {/* Two unbreakable halves: a phone never splits “reset-password” or “--email”. */}
          <code>
            <span class="nowrap">earshot user</span> <span class="nowrap">reset-password --email …</span>
          </code>
          .
        </p>
      )}
    </AuthCard>
  );
}

function MissingToken({ what }: { what: string }) {
  return (
    <AuthCard title={what}>
      <div class="note note-error" role="alert">
        <p>
          This address has no token. Open the full link you were given (it ends in <code>?token=…</code>).
        </p>
      </div>
    </AuthCard>
  );
}

/** `/console/setup/?token=…`: the first owner account ("Name", "Email", "Password", "Create account"). */
export function SetupPage() {
  const token = useLocation().query.token ?? "";
  const { busy, error, onSubmit } = useSessionSubmit((f) =>
    api<Session>("POST", apiPath`auth/setup/`, { token, name: str(f, "name"), email: str(f, "email"), password: str(f, "password") }),
  );
  if (!token) return <MissingToken what="Set up Earshot" />;
  return (
    <AuthCard title="Set up Earshot" intro={<p>Create the first account. It becomes the owner of this Earshot's workspace.</p>}>
      <HttpsNote error={error} />
      <form onSubmit={onSubmit} class="stack">
        <div class="field">
          <label for="name">Name</label>
          <input id="name" name="name" required autoComplete="name" />
        </div>
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" required autoComplete="username" />
        </div>
        <PasswordField id="password" label="Password" autoComplete="new-password" hint />
        {error?.code !== "HTTPS_REQUIRED" && <ErrorNote error={error} />}
        <button type="submit" disabled={busy}>
          Create account
        </button>
      </form>
    </AuthCard>
  );
}

type Invite = { email: string; workspace_name: string; role: string; expires_at: string };

/** `/console/invite/?token=…`: join a workspace ("Name", "Password", "Accept invite"). */
export function InvitePage() {
  const token = useLocation().query.token ?? "";
  const invite = useLoad(() => (token ? api<Invite>("GET", apiPath`auth/invites/${token}/`) : Promise.resolve(null)), [token]);
  const { busy, error, onSubmit, secondStep } = useSessionSubmit((f) =>
    api<Session>("POST", apiPath`auth/invites/${token}/accept/`, { name: str(f, "name"), password: str(f, "password") }),
  );
  if (!token) return <MissingToken what="Accept an invite" />;
  if (secondStep) return <AuthCard title="Two-factor authentication">{secondStep}</AuthCard>;
  if (invite.loading && !invite.data)
    return (
      <AuthCard title="Accept an invite">
        <Loading what="the invite" />
      </AuthCard>
    );
  if (invite.error || !invite.data) {
    return (
      <AuthCard title="Accept an invite">
        <div class="note note-error" role="alert">
          <p>{invite.error?.status === 404 ? "This invite is unknown, already used or expired. Ask for a new one." : invite.error?.message}</p>
        </div>
      </AuthCard>
    );
  }
  const i = invite.data;
  return (
    <AuthCard
      title="Accept an invite"
      intro={
        <p>
          You are invited to <strong>{i.workspace_name}</strong> as <strong>{i.role}</strong>, with the email <strong>{i.email}</strong>. If you already have an
          Earshot account with this email, enter its password.
        </p>
      }
    >
      <HttpsNote error={error} />
      <form onSubmit={onSubmit} class="stack">
        <div class="field">
          <label for="name">Name</label>
          <input id="name" name="name" required autoComplete="name" />
        </div>
        <PasswordField id="password" label="Password" autoComplete="new-password" hint />
        {error?.code !== "HTTPS_REQUIRED" && <ErrorNote error={error} />}
        <button type="submit" disabled={busy}>
          Accept invite
        </button>
      </form>
    </AuthCard>
  );
}

/** `/console/reset/?token=…`: choose a new password ("New password", "Set password"). */
export function ResetPage() {
  const token = useLocation().query.token ?? "";
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  if (!token) return <MissingToken what="Choose a new password" />;
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api("POST", apiPath`auth/password-reset/`, { token, password: str(new FormData(e.currentTarget as HTMLFormElement), "password") });
      setDone(true);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthCard title="Choose a new password" intro={<p>Every session of this account ends when the new password is set.</p>}>
      {done ? (
        <Notice>
          <p>
            Your password is changed. <a href="/console/login/">Sign in</a> with it.
          </p>
        </Notice>
      ) : (
        <form onSubmit={onSubmit} class="stack">
          <PasswordField id="password" label="New password" autoComplete="new-password" hint />
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Set password
          </button>
        </form>
      )}
    </AuthCard>
  );
}
