/**
 * @module auth/roles
 * Console roles and the scopes each one acts with (DESIGN §10; console contract). A session acts
 * with its role's scopes exactly as a key acts with its own.
 */
import { ADMIN_SCOPES, ALL_SCOPES, type AnyScope } from "./keys.ts";

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/**
 * owner: all 13 scopes. admin: the 8 spec scopes + members:read, members:write, audit:read.
 * member: links, responses and webhooks read/write + tokens:read. viewer: links:read, responses:read.
 */
export const ROLE_SCOPES: Record<Role, readonly AnyScope[]> = {
  owner: [...ALL_SCOPES, ...ADMIN_SCOPES],
  admin: [...ALL_SCOPES, "members:read", "members:write", "audit:read"],
  member: ["links:read", "links:write", "responses:read", "responses:write", "webhooks:read", "webhooks:write", "tokens:read"],
  viewer: ["links:read", "responses:read"],
};

/** True for a known role name. */
export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
