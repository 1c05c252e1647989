/**
 * @module oidc/client
 * The relying-party side of OpenID Connect (DESIGN §15), all protocol checks done by
 * `openid-client` (certified; docs: https://github.com/panva/openid-client): discovery, the
 * authorization URL with PKCE S256, `state` and `nonce`, and the code exchange that verifies the
 * ID token's signature, `iss`, `aud`, `exp`, `iat`, `nonce` and the `state`.
 */
import * as client from "openid-client";
import type { Clock } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import { isLoopbackHost, type OidcSettings } from "./settings.ts";

/** The redirect URI registered at the provider (DESIGN §15 contract). */
export const CALLBACK_PATH = "/api/v1/auth/oidc/callback/";
/** Discovery documents are fetched again after this long (a provider may rotate endpoints). */
const DISCOVERY_TTL_MS = 3600_000;
/** A provider that does not answer within this is reported, not waited on. */
const HTTP_TIMEOUT_S = 10;

/** What the browser must bring back to the callback (kept in the short-lived flow cookie). */
export type FlowSecrets = { state: string; nonce: string; verifier: string };

export type OidcClient = {
  /**
   * Loads the discovery document now (a workspace's settings are checked so when saved).
   * @throws AppError OIDC_FAILED naming what failed
   */
  check(): Promise<void>;
  /** Starts a flow: the provider's authorization URL and the secrets to keep for the callback. */
  begin(): Promise<{ url: string; secrets: FlowSecrets }>;
  /**
   * Exchanges the callback's code and checks everything the protocol requires.
   * @param callbackUrl the callback URL as the browser opened it (query included)
   * @returns the ID token's claims (userinfo claims merged in when the provider offers it)
   * @throws AppError OIDC_FAILED (the message says what failed, never a token)
   */
  finish(callbackUrl: URL, secrets: FlowSecrets): Promise<Record<string, unknown>>;
};

/** How a client reaches its provider: a workspace's provider goes through the outbound guard. */
export type ClientTransport = {
  /** Every request to the provider (discovery, token, JWKS, userinfo) goes through this. */
  fetch?: client.CustomFetch;
  /** Plain HTTP to the issuer is allowed (default: only to a loopback issuer, the operator's own). */
  allowHttp?: boolean;
};

/**
 * One client per app over `settings`; the clock is the app's (tests move it to expire tokens).
 * @param publicUrl EARSHOT_PUBLIC_URL without a trailing slash
 */
export function createOidcClient(settings: OidcSettings, publicUrl: string, clock: Clock, transport: ClientTransport = {}): OidcClient {
  const redirectUri = publicUrl + CALLBACK_PATH;
  const issuerUrl = new URL(settings.issuer);
  const insecure = issuerUrl.protocol === "http:" && (transport.allowHttp ?? isLoopbackHost(issuerUrl.hostname));
  const guarded = transport.fetch ? { [client.customFetch]: transport.fetch } : {};
  let discovered: { at: number; metadata: client.ServerMetadata } | null = null;

  const auth = () => (settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None());
  const configuration = async (): Promise<client.Configuration> => {
    if (!discovered || Date.now() - discovered.at > DISCOVERY_TTL_MS) {
      try {
        // discovery() checks that the document's `issuer` equals the configured one exactly.
        const found = await client.discovery(new URL(settings.issuer), settings.clientId, undefined, auth(), {
          execute: insecure ? [client.allowInsecureRequests] : [],
          timeout: HTTP_TIMEOUT_S,
          ...guarded,
        });
        discovered = { at: Date.now(), metadata: found.serverMetadata() };
      } catch (err) {
        throw failed("The identity provider's discovery document could not be used", err);
      }
    }
    // A fresh Configuration per use so that the clock skew follows the app's clock (tests).
    const metadata: Partial<client.ClientMetadata> = { [client.clockSkew]: Math.round((clock.nowMs() - Date.now()) / 1000) };
    const config = new client.Configuration(discovered.metadata, settings.clientId, metadata, auth());
    config.timeout = HTTP_TIMEOUT_S;
    if (transport.fetch) config[client.customFetch] = transport.fetch;
    if (insecure) client.allowInsecureRequests(config);
    return config;
  };

  return {
    async check() {
      await configuration();
    },
    async begin() {
      const config = await configuration();
      const secrets: FlowSecrets = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: "openid email profile",
        response_type: "code",
        code_challenge: await client.calculatePKCECodeChallenge(secrets.verifier),
        code_challenge_method: "S256",
        state: secrets.state,
        nonce: secrets.nonce,
      });
      return { url: url.href, secrets };
    },
    async finish(callbackUrl, secrets) {
      const config = await configuration();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: secrets.verifier,
          expectedState: secrets.state,
          expectedNonce: secrets.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        throw failed("The identity provider's answer was refused", err);
      }
      const claims: Record<string, unknown> = { ...tokens.claims()! };
      // Providers such as Keycloak put groups in the ID token, others only in userinfo: merge it
      // in (its `sub` must match the ID token's; openid-client checks that).
      if (config.serverMetadata().userinfo_endpoint) {
        try {
          const info = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub));
          for (const [k, v] of Object.entries(info)) if (!(k in claims)) claims[k] = v;
        } catch (err) {
          throw failed("The identity provider's userinfo answer was refused", err);
        }
      }
      return claims;
    },
  };
}

/** An OIDC_FAILED error naming what went wrong (the library's message says which check failed). */
function failed(what: string, err: unknown): AppError {
  let reason = err instanceof Error ? err.message.replace(/\s+/g, " ").slice(0, 200) : "unknown error";
  // openid-client keeps the provider's reply as the cause of "unexpected HTTP response status
  // code" and "unexpected response content-type": say what came back, which is what an owner
  // setting up single sign-on needs (404 for a wrong issuer path, text/html for a login page).
  const reply = err instanceof Error ? err.cause : undefined;
  if (reply instanceof Response) {
    const type = reply.headers.get("content-type")?.split(";")[0]?.trim().slice(0, 60);
    reason += ` (HTTP ${reply.status}${type ? `, ${type}` : ""})`;
  }
  return new AppError("OIDC_FAILED", `${what}: ${reason}.`);
}
