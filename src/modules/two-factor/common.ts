/**
 * @module two-factor/common
 * What the two-factor services share: their dependencies, the installation key, the throttle
 * (the sign-in throttle of DESIGN §10 under a key of its own per user, so a correct password
 * never forgives wrong codes), checking a code against the stored secret with replay refusal,
 * and audit entries in each of the user's workspaces.
 */
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import type { LoginAttempt, LoginThrottle } from "../../auth/login-throttle.ts";
import { recordAudit, type AuditAction } from "../audit/service.ts";
import { listUserMemberships, type UserRow } from "../users/repository.ts";
import { rateLimitRefusals } from "../../metrics/instruments.ts";
import * as repo from "./repository.ts";
import { decryptSecret, newInstallationKey } from "./secrets.ts";
import { matchingStep } from "./totp.ts";

export type TwoFactorDeps = {
  db: Kysely<Database>;
  clock: Clock;
  throttle: LoginThrottle;
  /** The `issuer` shown by authenticator apps, e.g. `Earshot (feedback.example.com)`. */
  issuer: string;
};

const KEY_SETTING = "two_factor_key";
const keys = new WeakMap<Kysely<Database>, Promise<string>>();

/** The installation key that encrypts TOTP secrets (made at first use, kept in `settings`). */
export function installationKey(db: Kysely<Database>): Promise<string> {
  let key = keys.get(db);
  if (!key) {
    key = repo.settingOrCreate(db, KEY_SETTING, newInstallationKey());
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

/**
 * Counts one second-factor attempt of `userUuid` against the throttle (5 per user or 20 per
 * address in 15 minutes, as for passwords); `succeeded()` takes it back.
 * @throws AppError RATE_LIMITED (with Retry-After)
 */
export async function beginAttempt(deps: TwoFactorDeps, userUuid: string, address: string | null): Promise<LoginAttempt> {
  const begun = await deps.throttle.begin(`two-factor:${userUuid}`, address, deps.clock.nowMs());
  if ("retryAfterS" in begun) {
    rateLimitRefusals.labels("sign_in").inc();
    throw new AppError("RATE_LIMITED", "Too many wrong codes; retry after the time in Retry-After.", { headers: { "Retry-After": String(begun.retryAfterS) } });
  }
  return begun.attempt;
}

/**
 * Whether `code` is the credential's current TOTP code (±1 step) of a step later than the last
 * used one. The caller records the step (`repo.useTimeStep` / `repo.enableCredential`), whose
 * conditional update also refuses a concurrent replay.
 * @returns the code's time step, or null
 */
export async function acceptCode(deps: TwoFactorDeps, cred: repo.CredentialRow, code: string): Promise<number | null> {
  const secret = decryptSecret(cred.secret_encrypted, await installationKey(deps.db));
  const step = matchingStep(secret, code, deps.clock.nowMs());
  if (step === null || (cred.last_used_step !== null && step <= cred.last_used_step)) return null;
  return step;
}

/** Appends an audit entry about the user in each workspace they belong to. */
export async function auditForUser(db: Kysely<Database>, user: Pick<UserRow, "uuid" | "name" | "email">, action: AuditAction, clientAddress: string | null) {
  for (const m of await listUserMemberships(db, user.uuid)) {
    await recordAudit(db, {
      workspaceUuid: m.workspace_uuid,
      actor: { type: "user", uuid: user.uuid, name: user.name },
      action,
      target: { type: "user", uuid: user.uuid, label: user.email },
      clientAddress,
    });
  }
}

/** The refusal of a wrong, expired or replayed code (one answer for all). */
export function invalidCode(what = "code"): AppError {
  return new AppError("INVALID_TWO_FACTOR_CODE", `The ${what} is wrong, expired or already used.`);
}
