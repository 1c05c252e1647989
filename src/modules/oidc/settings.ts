/**
 * @module oidc/settings
 * Instance-wide OpenID Connect single sign-on from the environment (DESIGN §15; docs/console.md
 * "Single sign-on"). Read by config.ts, the only reader of `process.env`; this file only parses.
 */
import type { Role } from "../../auth/roles.ts";

/** Roles the claim mapping may give: owners are made in Earshot only, so a provider cannot lock them out. */
export const MAPPABLE_ROLES = ["admin", "member", "viewer"] as const satisfies readonly Role[];
type MappableRole = (typeof MAPPABLE_ROLES)[number];

/** One `value=role` pair of `EARSHOT_OIDC_ROLE_MAP`, in the order written. */
export type RoleMapping = { value: string; role: MappableRole };

/** The parsed single sign-on settings; null in Config when `EARSHOT_OIDC_ISSUER` is unset. */
export type OidcSettings = Readonly<{
  /** The issuer identifier, exactly as the provider's discovery document states it. */
  issuer: string;
  clientId: string;
  /** null: a public client (PKCE only, `token_endpoint_auth_method: none`). */
  clientSecret: string | null;
  /** Lower-case email domains allowed to sign in; empty allows every domain. */
  allowedDomains: readonly string[];
  /** The ID-token / userinfo claim that carries groups or roles (e.g. `groups`), or null. */
  roleClaim: string | null;
  roleMap: readonly RoleMapping[];
  /** Unknown users become members of the default workspace (else: invite-only). */
  autoJoin: boolean;
  /** The role of a just-in-time member when no role claim is configured. */
  defaultRole: MappableRole;
  /** The name on the sign-in button: "Sign in with {providerName}". */
  providerName: string;
}>;

/** The raw variables this file reads (config.ts passes them through unchanged). */
export type OidcEnv = Partial<
  Record<
    | "EARSHOT_OIDC_ISSUER"
    | "EARSHOT_OIDC_CLIENT_ID"
    | "EARSHOT_OIDC_CLIENT_SECRET"
    | "EARSHOT_OIDC_ALLOWED_DOMAINS"
    | "EARSHOT_OIDC_ROLE_CLAIM"
    | "EARSHOT_OIDC_ROLE_MAP"
    | "EARSHOT_OIDC_AUTO_JOIN"
    | "EARSHOT_OIDC_DEFAULT_ROLE"
    | "EARSHOT_OIDC_PROVIDER_NAME",
    string | undefined
  >
>;

const isMappable = (v: string): v is MappableRole => (MAPPABLE_ROLES as readonly string[]).includes(v);
const truthy = (v: string | undefined) => v === "1" || v === "true" || v === "yes";

/**
 * Parses the `EARSHOT_OIDC_*` variables.
 * @returns null when `EARSHOT_OIDC_ISSUER` is unset (single sign-on off)
 * @returns a list of problems (each naming its variable, never a secret) when a value is invalid
 */
export function parseOidcSettings(env: OidcEnv): OidcSettings | null | { problems: string[] } {
  const issuer = env.EARSHOT_OIDC_ISSUER?.trim();
  if (!issuer) return null;
  const problems: string[] = [];
  let issuerUrl: URL | null = null;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    problems.push("EARSHOT_OIDC_ISSUER: not a URL");
  }
  // Plain HTTP is accepted only on this machine (a provider in a test or on the same host).
  if (issuerUrl && issuerUrl.protocol !== "https:" && !(issuerUrl.protocol === "http:" && isLoopbackHost(issuerUrl.hostname))) {
    problems.push("EARSHOT_OIDC_ISSUER: must be an https:// URL (http:// only for a provider on this machine)");
  }
  const clientId = env.EARSHOT_OIDC_CLIENT_ID?.trim();
  if (!clientId) problems.push("EARSHOT_OIDC_CLIENT_ID: needed when EARSHOT_OIDC_ISSUER is set");
  const roleMap: RoleMapping[] = [];
  for (const pair of (env.EARSHOT_OIDC_ROLE_MAP ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const i = pair.lastIndexOf("=");
    const value = pair.slice(0, i).trim();
    const role = pair.slice(i + 1).trim();
    if (i <= 0 || !value || !isMappable(role)) problems.push(`EARSHOT_OIDC_ROLE_MAP: "${pair}" is not value=admin|member|viewer`);
    else roleMap.push({ value, role });
  }
  const roleClaim = env.EARSHOT_OIDC_ROLE_CLAIM?.trim() || null;
  if (roleClaim && roleMap.length === 0) problems.push("EARSHOT_OIDC_ROLE_MAP: needed when EARSHOT_OIDC_ROLE_CLAIM is set");
  if (!roleClaim && roleMap.length > 0) problems.push("EARSHOT_OIDC_ROLE_CLAIM: needed when EARSHOT_OIDC_ROLE_MAP is set");
  const defaultRole = env.EARSHOT_OIDC_DEFAULT_ROLE?.trim() || "member";
  if (!isMappable(defaultRole)) problems.push("EARSHOT_OIDC_DEFAULT_ROLE: one of admin, member, viewer");
  if (problems.length) return { problems };
  return Object.freeze({
    issuer,
    clientId: clientId!,
    clientSecret: env.EARSHOT_OIDC_CLIENT_SECRET || null,
    allowedDomains: (env.EARSHOT_OIDC_ALLOWED_DOMAINS ?? "")
      .split(",")
      .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
      .filter(Boolean),
    roleClaim,
    roleMap,
    autoJoin: truthy(env.EARSHOT_OIDC_AUTO_JOIN),
    defaultRole: defaultRole as MappableRole,
    providerName: env.EARSHOT_OIDC_PROVIDER_NAME?.trim().slice(0, 60) || issuerUrl!.hostname,
  });
}

/** True for `localhost`, 127.0.0.0/8 and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === "[::1]" || hostname === "::1";
}

const ROLE_RANK: Record<MappableRole, number> = { admin: 3, member: 2, viewer: 1 };

/**
 * The role the claim gives: the most privileged mapping whose value the claim holds (a string or
 * an array of strings; other shapes hold nothing).
 * @returns null when no mapping matches
 */
export function mappedRole(settings: OidcSettings, claim: unknown): MappableRole | null {
  const values = typeof claim === "string" ? [claim] : Array.isArray(claim) ? claim.filter((v): v is string => typeof v === "string") : [];
  let best: MappableRole | null = null;
  for (const m of settings.roleMap) {
    if (values.includes(m.value) && (best === null || ROLE_RANK[m.role] > ROLE_RANK[best])) best = m.role;
  }
  return best;
}
