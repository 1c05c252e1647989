/**
 * @module test/helpers/oidc-console
 * The browser side of the single sign-on tests: a server signing in through a real OpenID Provider
 * (test/helpers/oidc-provider.ts) with Chromium on its console, and the provider's login page
 * driven by playwright. Apart from oidc-provider.ts so the API tests of OIDC do not load a browser.
 */
import type { BrowserContext, Page } from "playwright-core";
import { makeDataDir, removeDir } from "../e2e/voice-flow.ts";
import { launchBrowser } from "./browser.ts";
import { callbackUrl, startTestProvider, type ProviderUser, type TestProvider } from "./oidc-provider.ts";
import { startServer, type RunningServer } from "./process.ts";

/**
 * Logs `email` in on the provider's login page in a browser already sent there (its heading
 * "Test identity provider", "Email", "Sign in"); the provider then redirects back to Earshot.
 * @throws when the page or a control does not show (playwright's timeout)
 */
export async function loginAtProviderPage(page: Page, email: string): Promise<void> {
  await page.getByRole("heading", { name: "Test identity provider" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A server from source that signs in through a {@link TestProvider}, and Chromium for its console. */
export type OidcConsole = {
  provider: TestProvider;
  server: RunningServer;
  browser: BrowserContext;
  /** A 1280×800 page, not yet opened on anything. */
  page: Page;
  /**
   * The console's origin as the server names itself (`http://localhost:<port>`, no
   * EARSHOT_PUBLIC_URL): the browser must use it, or the flow cookie would not come back with
   * the provider's redirect. Its callback is the redirect URI registered at the provider.
   */
  origin: string;
  /**
   * From the sign-in page, "Sign in with Test IdP", then the provider's login as `email`; in a
   * browser with its cookies cleared first (the provider would otherwise sign the last person in
   * again silently). Resolves once the login form is sent, not when the console has opened.
   */
  signInThroughProvider(email: string): Promise<void>;
  /** Closes the browser, stops the server and the provider, removes the data directory. */
  close(): Promise<void>;
};

/**
 * Starts a provider that knows `users`, a server on a fresh data directory configured with it
 * (`serverEnv`, new people join by EARSHOT_OIDC_AUTO_JOIN, `env` over that), and Chromium without
 * a microphone, with bypassCSP (axe-core is injected as an inline script; the pages keep their
 * CSP header). No owner is created.
 * @throws what a step throws; what was started by then is closed first
 */
export async function startOidcConsole(opts: { users: ProviderUser[]; env?: Record<string, string> }): Promise<OidcConsole> {
  const dataDir = await makeDataDir();
  const redirectUris: string[] = [];
  let provider: TestProvider | undefined;
  let server: RunningServer | undefined;
  let browser: BrowserContext | undefined;
  const close = async () => {
    await browser?.close();
    await server?.stop();
    await provider?.close();
    await removeDir(dataDir);
  };
  try {
    provider = await startTestProvider(redirectUris);
    for (const user of opts.users) provider.users.set(user.email, user);
    server = await startServer({ dataDir, env: provider.serverEnv({ EARSHOT_OIDC_AUTO_JOIN: "true", ...opts.env }) });
    const origin = server.baseUrl.replace("127.0.0.1", "localhost");
    // In time: the provider reads its redirect URIs at its first request.
    redirectUris.push(callbackUrl(origin));
    browser = await launchBrowser({ microphone: false, bypassCSP: true });
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    const context = browser;
    const signInThroughProvider = async (email: string) => {
      await context.clearCookies();
      await page.goto(`${origin}/console/login/`);
      await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
      await loginAtProviderPage(page, email);
    };
    return { provider, server, browser, page, origin, signInThroughProvider, close };
  } catch (err) {
    await close();
    throw err;
  }
}
