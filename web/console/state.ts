/**
 * The console's shared state as signals: the signed-in session (`GET auth/session/`, DESIGN §10)
 * and what follows from it (CSRF token, scopes, current workspace).
 */
import { computed, signal } from "@preact/signals";

export type Role = "owner" | "admin" | "member" | "viewer";

export type Membership = { workspace_uuid: string; workspace_name: string; workspace_slug: string; role: Role };

/** `Session` of the console contract. */
export type Session = {
  user: { uuid: string; email: string; name: string; date_created: string; last_login_at: string | null };
  memberships: Membership[];
  current_workspace_uuid: string;
  role: Role;
  scopes: string[];
  csrf_token: string;
  /** EARSHOT_PUBLIC_URL, which public links, QR codes and invites are built from. */
  public_url: string;
};

/** The signed-in session; null before sign-in (or after sign-out). */
export const session = signal<Session | null>(null);
/** False until the first `GET auth/session/` has answered. */
export const sessionChecked = signal(false);

export const csrfToken = computed(() => session.value?.csrf_token ?? null);
export const scopes = computed(() => new Set(session.value?.scopes ?? []));

/** True when the session's role grants `scope` (e.g. `tokens:write`). */
export function can(scope: string): boolean {
  return scopes.value.has(scope);
}

/** The 8 scopes of the specification (DESIGN §5), in display order. */
export const SPEC_SCOPES = [
  "links:read",
  "links:write",
  "responses:read",
  "responses:write",
  "webhooks:read",
  "webhooks:write",
  "tokens:read",
  "tokens:write",
] as const;
/** Administrative scopes (console contract), never in a key unless asked for. */
export const ADMIN_SCOPES = ["members:read", "members:write", "audit:read", "workspace:write", "metrics:read"] as const;
