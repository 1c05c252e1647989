/**
 * The console's frame: reads the session once, routes (preact-iso) between the public pages
 * (sign-in, setup, invite, password reset) and the signed-in pages, and draws the header with
 * the navigation landmark, the workspace switcher and "Sign out" (DESIGN §10).
 */
import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentType } from "preact";
import { LocationProvider, Route, Router, useLocation, useRoute } from "preact-iso";
import { isUuid } from "../../src/shared/uuid.ts";
import { api, apiPath, type ApiError, refreshSession } from "./api.ts";
import { ErrorNote, toApiError } from "./components.tsx";
import { session, sessionChecked, type Session } from "./state.ts";
import { InvitePage, LoginPage, ResetPage, SetupPage } from "./pages/auth.tsx";
import { KeysPage } from "./pages/keys.tsx";
import { WebhooksPage } from "./pages/webhooks.tsx";
import { WebhookPage } from "./pages/webhook.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import { LinksPage } from "./pages/links.tsx";
import { BuilderPage } from "./pages/builder.tsx";
import { ResponsesPage } from "./pages/responses.tsx";
import { ResponsePage } from "./pages/response.tsx";
import { DashboardPage } from "./pages/dashboard.tsx";
import { InvitationsPage } from "./pages/invitations.tsx";
import { PublicUrlWarning } from "./public-url-warning.tsx";
import { ThemesPage } from "./pages/themes.tsx";
import { TwoFactorPage } from "./pages/two-factor.tsx";

export const BASE = "/console/";
const PUBLIC = ["/console/login/", "/console/setup/", "/console/invite/", "/console/reset/"];
const NAV: [string, string][] = [
  ["Links", "/console/links/"],
  ["Responses", "/console/responses/"],
  ["API keys", "/console/keys/"],
  ["Webhooks", "/console/webhooks/"],
  ["Settings", "/console/settings/"],
];

function withSlash(path: string): string {
  return path.endsWith("/") ? path : `${path}/`;
}

/** Sends signed-out visitors to sign-in, and signed-in ones away from it. */
function Guard() {
  const { path, url, route } = useLocation();
  const p = withSlash(path);
  const isPublic = PUBLIC.includes(p);
  useEffect(() => {
    if (!sessionChecked.value) return;
    if (!session.value && !isPublic) {
      route(`/console/login/${p === BASE ? "" : `?next=${encodeURIComponent(url)}`}`, true);
    } else if (session.value && (p === "/console/login/" || p === "/console/setup/")) {
      route("/console/links/", true);
    } else if (p === BASE && session.value) {
      route("/console/links/", true);
    }
  }, [p, session.value, sessionChecked.value]);
  return null;
}

function Header() {
  const { path, route } = useLocation();
  const s = session.value!;
  const [error, setError] = useState<ApiError | null>(null);
  const signOut = async () => {
    try {
      await api("POST", apiPath`auth/logout/`, {});
      route("/console/login/");
      session.value = null;
    } catch (err) {
      setError(toApiError(err));
    }
  };
  const switchTo = async (uuid: string) => {
    try {
      session.value = await api<Session>("POST", apiPath`auth/session/workspace/`, { workspace_uuid: uuid });
    } catch (err) {
      setError(toApiError(err));
    }
  };
  const current = s.memberships.find((m) => m.workspace_uuid === s.current_workspace_uuid);
  return (
    <header class="topbar">
      <div class="topbar-inner">
        <a class="brand" href="/console/links/">
          Earshot
        </a>
        <div class="who">
          {s.memberships.length > 1 ? (
            <label class="switcher">
              <span>Workspace</span>
              <select value={s.current_workspace_uuid} onChange={(e) => switchTo(e.currentTarget.value)}>
                {s.memberships.map((m) => (
                  <option key={m.workspace_uuid} value={m.workspace_uuid}>
                    {m.workspace_name} ({m.role})
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span class="workspace-name">{current?.workspace_name ?? ""}</span>
          )}
          <span class="user-name" title={s.user.email}>
            {s.user.name || s.user.email} · {s.role}
          </span>
        </div>
      </div>
      <nav class="nav" aria-label="Console">
        <ul>
          {NAV.map(([label, href]) => (
            <li key={href}>
              <a href={href} aria-current={withSlash(path).startsWith(href) ? "page" : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
        <button type="button" class="button-secondary sign-out" onClick={signOut}>
          Sign out
        </button>
      </nav>
      <ErrorNote error={error} />
    </header>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <a href="/console/links/">Go to Links</a>.
      </p>
    </section>
  );
}

/**
 * A page whose address names an object by its UUID (`/console/webhooks/:uuid/`): any other value
 * there — such as `..%2F..%2Ftokens%2F…`, which the router decodes to a path — is "Page not
 * found", before the page builds a request from it (issue 22; apiPath checks again).
 */
function byUuid(Page: ComponentType): ComponentType {
  return function PageByUuid() {
    const { params } = useRoute();
    return isUuid(params.uuid ?? "") ? <Page /> : <NotFound />;
  };
}

const LinkBuilder = byUuid(BuilderPage);
const LinkResponses = byUuid(ResponsesPage);
const LinkDashboard = byUuid(DashboardPage);
const LinkThemes = byUuid(ThemesPage);
const LinkInvitations = byUuid(InvitationsPage);
const OneResponse = byUuid(ResponsePage);
const OneWebhook = byUuid(WebhookPage);

function Shell() {
  const { path } = useLocation();
  const isPublic = PUBLIC.includes(withSlash(path));
  // After a client-side navigation, move focus to the new page's content (as a page load would).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById("main")?.focus();
  }, [path]);
  if (!sessionChecked.value) return <p class="boot">Loading the console…</p>;
  if (isPublic || !session.value) {
    return (
      <>
        <Guard />
        <main class="auth-main">
          <Router>
            <Route path="/console/login" component={LoginPage} />
            <Route path="/console/setup" component={SetupPage} />
            <Route path="/console/invite" component={InvitePage} />
            <Route path="/console/reset" component={ResetPage} />
            <Route default component={() => <p class="boot">Redirecting to sign-in…</p>} />
          </Router>
        </main>
      </>
    );
  }
  return (
    <>
      <Guard />
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <PublicUrlWarning />
      <main id="main" class="main" tabIndex={-1} key={session.value.current_workspace_uuid}>
        <Router>
          <Route path="/console/links" component={LinksPage} />
          <Route path="/console/links/new" component={BuilderPage} />
          <Route path="/console/links/:uuid" component={LinkBuilder} />
          <Route path="/console/links/:uuid/responses" component={LinkResponses} />
          <Route path="/console/links/:uuid/dashboard" component={LinkDashboard} />
          <Route path="/console/links/:uuid/themes" component={LinkThemes} />
          <Route path="/console/links/:uuid/invitations" component={LinkInvitations} />
          <Route path="/console/responses" component={ResponsesPage} />
          <Route path="/console/responses/:uuid" component={OneResponse} />
          <Route path="/console/keys" component={KeysPage} />
          <Route path="/console/webhooks" component={WebhooksPage} />
          <Route path="/console/webhooks/:uuid" component={OneWebhook} />
          <Route path="/console/settings" component={SettingsPage} />
          <Route path="/console/account/two-factor" component={TwoFactorPage} />
          <Route path="/console" component={() => <p class="boot">Opening Links…</p>} />
          <Route default component={NotFound} />
        </Router>
      </main>
      <Footer />
    </>
  );
}

/** The version this server runs (`GET /healthz/live`, no database read), once per console load. */
const serverVersion = signal<string | null>(null);

/** The footer: which Earshot this is (operators quote it in bug reports and upgrades). */
function Footer() {
  useEffect(() => {
    if (serverVersion.value) return;
    api<{ version: string }>("GET", apiPath`/healthz/live`)
      .then((live) => {
        serverVersion.value = live.version;
      })
      .catch(() => {});
  }, []);
  return <footer class="footer">{serverVersion.value ? `Earshot ${serverVersion.value}` : "Earshot"}</footer>;
}

/** Why the first `GET auth/session/` failed (other than "not signed in"). */
const bootError = signal<ApiError | null>(null);

/** Starts reading the session; main.tsx calls it before the first render, so it overlaps parsing. */
export function startSession(): void {
  refreshSession().catch((err: unknown) => {
    bootError.value = toApiError(err);
    sessionChecked.value = true;
  });
}

/** The whole console. */
export function App() {
  return (
    <LocationProvider scope="/console/">
      <ErrorNote error={bootError.value} />
      <Shell />
    </LocationProvider>
  );
}
