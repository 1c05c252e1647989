/**
 * @module oidc/outbound
 * A workspace's provider is named by the workspace's owner, not the operator: every request to it
 * (discovery, token, JWKS, userinfo — whatever URLs its discovery document lists) goes through the
 * webhooks' outbound guard (outbox/url-guard.ts; DESIGN §8): HTTPS only, and never to loopback,
 * link-local, cloud-metadata or reserved addresses unless the operator lists the host in
 * `EARSHOT_WEBHOOK_ALLOW_HOSTS` (then plain HTTP to it is allowed too: a provider on this machine).
 * Redirects are not followed. The address is checked at each request; the connection then resolves
 * the name again (a DNS answer that changes in between is the residual risk, as documented in
 * docs/decisions/oidc.md).
 */
import type { CustomFetch } from "openid-client";
import { isAllowedHost, resolveDeliveryAddresses } from "../../outbox/url-guard.ts";

/**
 * Why `url` may not be a workspace provider's URL, or null when its scheme and literal host pass
 * (hostnames are resolved and checked at each request).
 */
export function providerUrlRefusal(url: string, allowHosts: readonly string[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL";
  }
  if (parsed.username || parsed.password) return "no user name or password in the URL";
  if (parsed.protocol === "https:") return null;
  if (parsed.protocol === "http:" && isAllowedHost(parsed.hostname, allowHosts)) return null;
  return "must be an https:// URL (http:// only to a host listed in EARSHOT_WEBHOOK_ALLOW_HOSTS)";
}

/**
 * The fetch a workspace provider's client uses.
 * @throws Error naming the refused host (openid-client reports it as the failed request)
 */
export function guardedFetch(allowHosts: readonly string[]): CustomFetch {
  return async (url, options) => {
    const refusal = providerUrlRefusal(url, allowHosts);
    if (refusal) throw new Error(`Refused ${new URL(url).host}: ${refusal}`);
    await resolveDeliveryAddresses(new URL(url), allowHosts);
    return fetch(url, { ...options, redirect: "manual" } as RequestInit);
  };
}
