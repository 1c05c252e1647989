/**
 * @module outbox/url-guard
 * Outbound safety for webhook URLs (DESIGN §8; Documenso's SSRF guard): a delivery never goes to
 * loopback, link-local, unspecified, multicast/reserved or cloud-metadata addresses unless the
 * operator lists the host (or address, or CIDR) in `EARSHOT_WEBHOOK_ALLOW_HOSTS`. LAN (RFC 1918,
 * unique-local) receivers are allowed: they are what a self-hosted appliance talks to.
 *
 * The host is resolved once, every address is checked, and the caller connects to the checked
 * address (so a DNS answer that changes between check and connect cannot redirect the request).
 */
import type net from "node:net";

/** `node:net`, loaded at the first check rather than at every start of the server (~20 ms, bench/startup.ts). */
const netModule = (): typeof net => require("node:net");

/** Why an address is refused, by CIDR. IPv4 rules also apply to IPv4-mapped and NAT64 IPv6. */
const FORBIDDEN_V4: ReadonlyArray<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["100.100.100.200", 32, "cloud metadata"],
  ["192.0.0.192", 32, "cloud metadata"],
  ["168.63.129.16", 32, "cloud metadata"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const FORBIDDEN_V6: ReadonlyArray<[string, number, string]> = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["fe80::", 10, "link-local"],
  ["fd00:ec2::254", 128, "cloud metadata"],
  ["ff00::", 8, "multicast"],
];

/** IPv4 `a.b.c.d` as the two low 16-bit groups of an IPv6 address (`aabb:ccdd`). */
function v4Groups(ip: string): string {
  const [a, b, c, d] = ip.split(".").map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

let rules: Array<{ list: net.BlockList; reason: string }> | null = null;

/** The forbidden ranges as block lists, built at the first check. */
function forbiddenRules(): Array<{ list: net.BlockList; reason: string }> {
  if (rules) return rules;
  const { BlockList } = netModule();
  const built: Array<{ list: net.BlockList; reason: string }> = [];
  for (const [addr, prefix, reason] of FORBIDDEN_V4) {
    const list = new BlockList();
    list.addSubnet(addr, prefix, "ipv4");
    // NAT64 (64:ff9b::/96) and IPv4-compatible (::/96) forms reach the same IPv4 host.
    list.addSubnet(`64:ff9b::${v4Groups(addr)}`, 96 + prefix, "ipv6");
    if (addr !== "0.0.0.0") list.addSubnet(`::${v4Groups(addr)}`, 96 + prefix, "ipv6");
    built.push({ list, reason });
  }
  for (const [addr, prefix, reason] of FORBIDDEN_V6) {
    const list = new BlockList();
    list.addSubnet(addr, prefix, "ipv6");
    built.push({ list, reason });
  }
  return (rules = built);
}

/** Refusal of an outbound request; the message names the host and address class. */
export class OutboundBlockedError extends Error {
  override name = "OutboundBlockedError";
}

/** `[::1]` → `::1`; other hosts unchanged, lower-cased. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
}

/**
 * Why `ip` must not be contacted (e.g. `"loopback"`), or null when it may be.
 * @param ip a literal IPv4 or IPv6 address (no brackets)
 */
export function forbiddenReason(ip: string): string | null {
  const family = netModule().isIP(ip);
  if (!family) return null;
  const type = family === 4 ? "ipv4" : "ipv6";
  return forbiddenRules().find((r) => r.list.check(ip, type))?.reason ?? null;
}

/** True when `hostOrIp` (hostname, address, or an address inside a listed CIDR) is in the allow list. */
export function isAllowedHost(hostOrIp: string, allowHosts: readonly string[]): boolean {
  const host = bareHost(hostOrIp);
  const net = netModule();
  const family = net.isIP(host);
  return allowHosts.some((entry) => {
    const e = bareHost(entry.trim());
    if (e === host) return true;
    const [base, bits] = e.split("/");
    if (!family || bits === undefined || !net.isIP(base!)) return false;
    const list = new net.BlockList();
    list.addSubnet(base!, Number(bits), net.isIP(base!) === 4 ? "ipv4" : "ipv6");
    return list.check(host, family === 4 ? "ipv4" : "ipv6");
  });
}

/**
 * Creation-time check: when the URL's host is a literal forbidden address (and not allowed),
 * returns the reason; hostnames are checked only at delivery, after resolution.
 */
export function literalHostRefusal(url: string, allowHosts: readonly string[]): string | null {
  const host = bareHost(new URL(url).hostname);
  if (!netModule().isIP(host) || isAllowedHost(host, allowHosts)) return null;
  const reason = forbiddenReason(host);
  return reason ? `${host} is a ${reason} address` : null;
}

/**
 * Delivery-time check: resolves the URL's host and checks every address.
 * @returns the checked addresses to connect to, in resolver order, or null when the host is
 *   allowed as is (connect by name)
 * @throws OutboundBlockedError when an address is forbidden; the DNS error when resolution fails
 */
export async function resolveDeliveryAddresses(url: URL, allowHosts: readonly string[]): Promise<string[] | null> {
  const host = bareHost(url.hostname);
  if (isAllowedHost(host, allowHosts)) return null;
  // node:dns loads at the first delivery to a name, not at every start of the server (bench/startup.ts).
  const resolve = async () => (await (await import("node:dns/promises")).lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  const addresses = netModule().isIP(host) ? [host] : await resolve();
  for (const address of addresses) {
    const reason = forbiddenReason(address);
    if (reason && !isAllowedHost(address, allowHosts)) {
      throw new OutboundBlockedError(`Refused: ${host} resolves to ${address}, a ${reason} address (allow it with EARSHOT_WEBHOOK_ALLOW_HOSTS).`);
    }
  }
  return addresses;
}
