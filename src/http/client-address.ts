/**
 * @module http/client-address
 * The client's address behind trusted proxies, one rule for the whole server (intake limits,
 * sign-in throttling, the audit log): the socket's peer, or — when the peer is listed in
 * `EARSHOT_TRUSTED_PROXIES` — the right-most `X-Forwarded-For` entry that is not itself a trusted
 * proxy. Entries left of it are the client's own word and are never used; a chain of trusted
 * proxies (each appending the address it saw) still yields the real client, not the last proxy.
 */

/** An address without surrounding spaces and without the IPv4-mapped IPv6 prefix. */
export function normalizeAddress(address: string): string {
  return address.trim().replace(/^::ffff:/, "");
}

/**
 * @param peer the socket's address (null inside `app.handle` tests)
 * @returns the client's address, normalized (see `normalizeAddress`); null when `peer` is null
 */
export function forwardedClientAddress(request: Request, peer: string | null, trustedProxies: readonly string[]): string | null {
  if (!peer) return null;
  const socket = normalizeAddress(peer);
  const trusted = (a: string) => trustedProxies.includes(a) || trustedProxies.includes(`::ffff:${a}`);
  if (!trusted(socket)) return socket;
  const chain = (request.headers.get("x-forwarded-for") ?? "").split(",").map(normalizeAddress).filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) if (!trusted(chain[i]!)) return chain[i]!;
  return socket;
}
