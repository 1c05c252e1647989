/**
 * @module users/accounts
 * Accounts and their secrets (DESIGN §10): argon2id password hashes via `Bun.password`, server-side
 * sessions (a fresh random id at every sign-in; only its hash is stored), the `Session` view, and
 * one-time tokens for setup, invites and password resets (hashes only; single use).
 */
import { isoAfter, nowIso } from "../../clock.ts";
import type { Executor } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { ROLE_SCOPES, type Role } from "../../auth/roles.ts";
import { SESSION_ABSOLUTE_S, randomSecret, sha256Hex } from "../../auth/sessions.ts";
import * as repo from "./repository.ts";
import type { z } from "zod";
import type { sessionSchema } from "./model.ts";

/** Setup URLs last 24 h, invites 7 days, password resets 24 h. */
export const ONE_TIME_TTL_S = { setup: 24 * 3600, invite: 7 * 24 * 3600, password_reset: 24 * 3600 } as const;

/** The `Session` object of the console contract (`sessionSchema`, model.ts) without `public_url`, which routes add. */
export type SessionView = Omit<z.output<typeof sessionSchema>, "public_url">;

/** The case-insensitive key of an email address. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** An argon2id hash of the password (`Bun.password`, default cost). */
export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

let dummyHash: Promise<string> | null = null;
/**
 * Checks a password against a stored hash; with no hash it still spends the time of one check, so
 * an unknown email answers as slowly as a wrong password.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (!hash) {
    dummyHash ??= hashPassword("not a password of anyone");
    await Bun.password.verify(password, await dummyHash);
    return false;
  }
  return Bun.password.verify(password, hash);
}

/**
 * Starts a session for a user (a new random id, never a caller-chosen one).
 * @param limitedTo a workspace's own provider signed the user in: the session acts on that
 *   workspace only (then `workspaceUuid` must be it)
 * @returns the cookie value (shown only to the browser) and the stored hash
 */
export async function startSession(
  db: Executor,
  userUuid: string,
  workspaceUuid: string | null,
  limitedTo: string | null = null,
): Promise<{ cookie: string; idHash: string }> {
  const cookie = randomSecret();
  const now = nowIso();
  const idHash = sha256Hex(cookie);
  await repo.insertSession(db, {
    id_hash: idHash,
    user_uuid: userUuid,
    workspace_uuid: workspaceUuid,
    csrf_token: randomSecret(),
    date_created: now,
    last_seen_at: now,
    expires_at: isoAfter(SESSION_ABSOLUTE_S),
    limited_to_workspace_uuid: limitedTo,
  });
  return { cookie, idHash };
}

/**
 * The `Session` view of a session row. When the current workspace's membership is gone, the
 * session moves to the user's first remaining workspace (or none).
 * @throws AppError UNAUTHENTICATED when the session or the user is gone
 */
export async function sessionView(db: Executor, idHash: string): Promise<SessionView> {
  const session = await repo.findSession(db, idHash);
  const user = session && (await repo.findUserByUuid(db, session.user_uuid));
  if (!session || !user) throw new AppError("UNAUTHENTICATED", "The session has ended; sign in again.");
  // A session limited to one workspace (a workspace's own provider) sees that membership only.
  const limited = session.limited_to_workspace_uuid;
  const memberships = (await repo.listUserMemberships(db, user.uuid)).filter((m) => !limited || m.workspace_uuid === limited);
  let current = memberships.find((m) => m.workspace_uuid === session.workspace_uuid) ?? null;
  if (!current) {
    current = memberships[0] ?? null;
    await repo.setSessionWorkspace(db, idHash, current?.workspace_uuid ?? null);
  }
  return {
    user: { uuid: user.uuid, email: user.email, name: user.name, date_created: user.date_created, last_login_at: user.last_login_at },
    memberships: memberships.map((m) => ({
      workspace_uuid: m.workspace_uuid,
      workspace_name: m.workspace_name,
      workspace_slug: m.workspace_slug,
      role: m.role,
    })),
    current_workspace_uuid: current?.workspace_uuid ?? null,
    role: current?.role ?? null,
    scopes: current ? [...ROLE_SCOPES[current.role]] : [],
    csrf_token: session.csrf_token,
  };
}

/**
 * Issues a one-time token.
 * @returns the plain token (it goes into a URL once) and the row's uuid
 */
export async function issueOneTimeToken(
  db: Executor,
  purpose: keyof typeof ONE_TIME_TTL_S,
  fields: { workspaceUuid?: string | null; userUuid?: string | null; email?: string | null; role?: Role | null; createdByUserUuid?: string | null },
): Promise<{ token: string; uuid: string; date_created: string; expires_at: string }> {
  const token = randomSecret();
  const row: repo.OneTimeTokenRow = {
    uuid: crypto.randomUUID(),
    token_hash: sha256Hex(token),
    purpose,
    workspace_uuid: fields.workspaceUuid ?? null,
    user_uuid: fields.userUuid ?? null,
    email: fields.email ?? null,
    role: fields.role ?? null,
    date_created: nowIso(),
    expires_at: isoAfter(ONE_TIME_TTL_S[purpose]),
    used_at: null,
    created_by_user_uuid: fields.createdByUserUuid ?? null,
    mail_state: null,
    mail_error: null,
    mail_updated_at: null,
  };
  await repo.insertOneTimeToken(db, row);
  return { token, uuid: row.uuid, date_created: row.date_created, expires_at: row.expires_at };
}

/**
 * A usable (unused, unexpired) one-time token of `purpose`.
 * @throws AppError NOT_FOUND for an unknown, used or expired token (one answer for all three)
 */
export async function findUsableToken(db: Executor, token: string, purpose: repo.OneTimeTokenRow["purpose"]): Promise<repo.OneTimeTokenRow> {
  const row = typeof token === "string" && token.length <= 200 ? await repo.findOneTimeToken(db, sha256Hex(token)) : undefined;
  if (!row || row.purpose !== purpose || row.used_at || row.expires_at <= nowIso()) {
    throw new AppError("NOT_FOUND", "This link is unknown, already used or expired.");
  }
  return row;
}

/**
 * Uses a one-time token inside the caller's transaction, once.
 * @throws AppError NOT_FOUND when another request used it first
 */
export async function consumeToken(db: Executor, row: repo.OneTimeTokenRow): Promise<void> {
  if (!(await repo.useOneTimeToken(db, row.uuid, nowIso()))) throw new AppError("NOT_FOUND", "This link is unknown, already used or expired.");
}

/**
 * Creates a user (hash the password before the transaction; null: the user signs in after a
 * password reset).
 * @throws AppError VALIDATION_ERROR (pointer `/email`) when the email has an account already
 */
export async function insertNewUser(db: Executor, input: { email: string; name: string; passwordHash: string | null }): Promise<repo.UserRow> {
  if (await repo.findUserByEmailKey(db, emailKey(input.email))) {
    throw new AppError("VALIDATION_ERROR", "An account with this email exists already.", { errors: [{ pointer: "/email", message: "Already registered." }] });
  }
  const row: repo.UserRow = {
    uuid: crypto.randomUUID(),
    email: input.email.trim(),
    email_key: emailKey(input.email),
    name: input.name.trim(),
    password_hash: input.passwordHash,
    date_created: nowIso(),
    last_login_at: null,
    disabled: 0,
  };
  await repo.insertUser(db, row);
  return row;
}
