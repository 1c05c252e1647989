/**
 * @module test/helpers/oidc-provider
 * A real OpenID Provider for single sign-on tests: `oidc-provider` (a certified implementation)
 * on a loopback port, with one confidential client and a minimal login page of our own at
 * `/interaction/{uid}` ("Email" + "Sign in"; no password: the test decides who exists). Consent
 * is granted with the login, so one form post finishes the interaction.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** A person at the provider; `groups` is the claim Earshot's role mapping reads. */
export type ProviderUser = { email: string; email_verified: boolean; name: string; groups: string[] };

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** People by email (the login form's value and the `sub`); change them between sign-ins. */
  users: Map<string, ProviderUser>;
  /** ID-token lifetime in seconds for tokens issued from now on (default 3600). */
  setIdTokenTtl(seconds: number): void;
  /**
   * The environment that makes a server sign in through this provider, named "Test IdP"
   * (EARSHOT_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET, _PROVIDER_NAME), with `extra` over it.
   */
  serverEnv(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
};

/**
 * Starts the provider on 127.0.0.1 and a free port.
 * @param redirectUris the client's registered redirect URIs (read at the provider's first request)
 */
export async function startTestProvider(redirectUris: string[]): Promise<TestProvider> {
  const users = new Map<string, ProviderUser>();
  let idTokenTtl = 3600;
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "earshot-test";
  const clientSecret = "a-test-client-secret-of-some-length-0123456789";
  // Built at the first request, so that a test may add redirect URIs once its server's port is known.
  const build = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: redirectUris,
          response_types: ["code"],
          grant_types: ["authorization_code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
      ttl: { IdToken: () => idTokenTtl },
      async findAccount(_ctx, id) {
        const user = users.get(id);
        if (!user) return undefined;
        return { accountId: id, claims: () => ({ sub: id, ...user }) };
      },
    });
  let built: { provider: Provider; handle: ReturnType<Provider["callback"]> } | null = null;

  server.on("request", async (req, res) => {
    if (!built) {
      const p = build();
      built = { provider: p, handle: p.callback() };
    }
    const { provider, handle: handleProvider } = built;
    const match = /^\/interaction\/([\w-]+)$/.exec(req.url ?? "");
    if (!match) return handleProvider(req, res);
    try {
      if (req.method === "GET") {
        await provider.interactionDetails(req, res);
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(
          `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Test provider</title></head>` +
            `<body><h1>Test identity provider</h1><form method="post"><label for="login">Email</label> <input id="login" name="login" type="email" required>` +
            ` <button type="submit">Sign in</button></form></body></html>`,
        );
        return;
      }
      let body = "";
      for await (const chunk of req) body += chunk;
      const accountId = new URLSearchParams(body).get("login") ?? "";
      const details = await provider.interactionDetails(req, res);
      if (!users.has(accountId)) {
        await provider.interactionFinished(req, res, { error: "access_denied", error_description: "unknown test user" });
        return;
      }
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });

  return {
    issuer,
    clientId,
    clientSecret,
    users,
    setIdTokenTtl: (s) => {
      idTokenTtl = s;
    },
    serverEnv: (extra = {}) => ({
      EARSHOT_OIDC_ISSUER: issuer,
      EARSHOT_OIDC_CLIENT_ID: clientId,
      EARSHOT_OIDC_CLIENT_SECRET: clientSecret,
      EARSHOT_OIDC_PROVIDER_NAME: "Test IdP",
      ...extra,
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A cookie jar for a non-browser client talking to the provider (all paths alike; tests only). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  /** Remembers the `Set-Cookie` headers of a response. */
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  /** The `Cookie` header value. */
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Logs `email` in at the provider the way a browser would: follows the authorization URL's
 * redirects, posts the login form, and stops at the redirect back to Earshot.
 * @returns that redirect (Earshot's callback URL with `code`, `state` and `iss`)
 */
export async function loginAtProvider(authorizationUrl: string, email: string): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    const isForm = /\/interaction\/[\w-]+$/.test(new URL(url).pathname);
    const res = await fetch(url, {
      method: isForm ? "POST" : "GET",
      redirect: "manual",
      headers: { cookie: jar.header(), ...(isForm ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: isForm ? new URLSearchParams({ login: email }).toString() : undefined,
    });
    jar.take(res);
    const location = res.headers.get("location");
    if (!location) throw new Error(`provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
    const next = new URL(location, url);
    if (next.origin !== new URL(authorizationUrl).origin) return next;
    url = next.href;
  }
  throw new Error("too many redirects at the provider");
}

/** Earshot's OIDC callback at `origin` (no trailing slash): the redirect URI to register at the provider. */
export const callbackUrl = (origin: string): string => `${origin}/api/v1/auth/oidc/callback/`;
