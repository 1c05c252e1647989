/**
 * @module two-factor/service
 * A user's own two-factor authentication (issue 28; DESIGN §15): status, enrolment (a secret made
 * here, shown once; confirmed with a first code, which hands out the 10 recovery codes once),
 * disabling and new recovery codes (each needs the current code or the password), and a
 * workspace's requirement (owners and admins). Every change is audited.
 */
import { assertAccountWide, type SessionAuth, type AuthContext } from "../../auth/authenticate.ts";
import { AppError } from "../../errors.ts";
import { recordByAuth } from "../audit/service.ts";
import { verifyPassword } from "../users/accounts.ts";
import { listUserMemberships } from "../users/repository.ts";
import { acceptCode, auditForUser, beginAttempt, installationKey, invalidCode, type TwoFactorDeps } from "./common.ts";
import * as repo from "./repository.ts";
import { encryptSecret, newRecoveryCodes, recoveryCodeHash } from "./secrets.ts";
import { enrolmentUri, newTotpSecret } from "./totp.ts";

/**
 * The signed-in user's two-factor state.
 * @returns `{enabled, enabled_at, recovery_codes_remaining, required_by_workspace}`
 */
export async function getStatus(deps: TwoFactorDeps, s: SessionAuth) {
  const cred = await repo.findCredential(deps.db, s.user.uuid);
  const enabled = !!cred?.enabled_at;
  return {
    enabled,
    enabled_at: cred?.enabled_at ?? null,
    recovery_codes_remaining: enabled ? await repo.countUnusedRecoveryCodes(deps.db, s.user.uuid) : 0,
    required_by_workspace: s.session.workspace_uuid ? await repo.isRequiredBy(deps.db, s.session.workspace_uuid) : false,
  };
}

/**
 * A second factor is account-wide: a session from a workspace's own provider may change it only
 * when the account belongs to that workspace alone (docs/decisions/oidc.md).
 * @throws AppError SESSION_LIMITED_TO_WORKSPACE
 */
async function assertOwnAccount(deps: TwoFactorDeps, s: SessionAuth, what: string): Promise<void> {
  if (!s.session.limited_to_workspace_uuid) return;
  assertAccountWide(
    s,
    what,
    (await listUserMemberships(deps.db, s.user.uuid)).map((m) => m.workspace_uuid),
  );
}

/**
 * Starts (or restarts) an enrolment: a new secret, stored encrypted and pending until confirmed.
 * @returns the secret (base32), its `otpauth://` URI and QR code — the only time they are returned
 * @throws AppError TWO_FACTOR_ALREADY_ENABLED
 *   SESSION_LIMITED_TO_WORKSPACE (a workspace provider's session of an account in other workspaces too)
 */
export async function startEnrolment(deps: TwoFactorDeps, s: SessionAuth) {
  await assertOwnAccount(deps, s, "turn on two-factor authentication for an account of other workspaces too");
  if ((await repo.findCredential(deps.db, s.user.uuid))?.enabled_at) {
    throw new AppError("TWO_FACTOR_ALREADY_ENABLED", "Two-factor authentication is on already; disable it first to enrol another app.");
  }
  const secret = newTotpSecret();
  await repo.putPendingCredential(deps.db, s.user.uuid, encryptSecret(secret, await installationKey(deps.db)), deps.clock.nowIso());
  const { uri, qrCode } = enrolmentUri(secret, s.user.email, deps.issuer);
  return { secret, otpauth_uri: uri, qr_code: qrCode };
}

/** New recovery codes for the user, stored hashed (inside the caller's transaction). */
async function issueRecoveryCodes(deps: TwoFactorDeps, db: TwoFactorDeps["db"], userUuid: string): Promise<{ recovery_codes: string[] }> {
  const codes = newRecoveryCodes();
  await repo.replaceRecoveryCodes(db, userUuid, codes.map(recoveryCodeHash), deps.clock.nowIso());
  return { recovery_codes: codes };
}

/**
 * Confirms the pending enrolment with a first code: two-factor is on from now, and the 10
 * recovery codes are returned (once). Wrong codes count against the throttle.
 * @throws AppError TWO_FACTOR_NOT_ENABLED (no enrolment waiting), TWO_FACTOR_ALREADY_ENABLED,
 *   INVALID_TWO_FACTOR_CODE, RATE_LIMITED
 *   SESSION_LIMITED_TO_WORKSPACE (a workspace provider's session of an account in other workspaces too)
 */
export async function confirmEnrolment(deps: TwoFactorDeps, s: SessionAuth, code: string, address: string | null) {
  await assertOwnAccount(deps, s, "turn on two-factor authentication for an account of other workspaces too");
  const cred = await repo.findCredential(deps.db, s.user.uuid);
  if (!cred) throw new AppError("TWO_FACTOR_NOT_ENABLED", "No enrolment is waiting for a code; start one first.");
  if (cred.enabled_at) throw new AppError("TWO_FACTOR_ALREADY_ENABLED", "Two-factor authentication is on already.");
  const attempt = await beginAttempt(deps, s.user.uuid, address);
  const step = await acceptCode(deps, cred, code);
  if (step === null) throw invalidCode();
  const codes = await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.enableCredential(trx, s.user.uuid, step, deps.clock.nowIso()))) throw invalidCode();
    const issued = await issueRecoveryCodes(deps, trx, s.user.uuid);
    // Sessions begun with the password alone (another browser, a stolen cookie) end: from now on
    // every session of this account has passed its second factor. This one stays.
    await repo.endOtherSessions(trx, s.user.uuid, s.idHash);
    await auditForUser(trx, s.user, "two_factor.enabled", address);
    return issued;
  });
  await attempt.succeeded();
  return codes;
}

/**
 * Checks the proof a change needs: the current code (not replayed) or the account's password.
 * @throws AppError TWO_FACTOR_NOT_ENABLED, INVALID_TWO_FACTOR_CODE, RATE_LIMITED
 */
async function checkProof(deps: TwoFactorDeps, s: SessionAuth, proof: { code?: string; password?: string }, address: string | null) {
  await assertOwnAccount(deps, s, "change the second factor of an account of other workspaces too");
  const cred = await repo.findCredential(deps.db, s.user.uuid);
  if (!cred?.enabled_at) throw new AppError("TWO_FACTOR_NOT_ENABLED", "Two-factor authentication is not on for this account.");
  const attempt = await beginAttempt(deps, s.user.uuid, address);
  if (proof.code !== undefined) {
    const step = await acceptCode(deps, cred, proof.code);
    if (step === null || !(await repo.useTimeStep(deps.db, s.user.uuid, step))) throw invalidCode();
  } else if (!(await verifyPassword(proof.password ?? "", s.user.password_hash))) {
    throw new AppError("INVALID_CREDENTIALS", "The password is wrong.");
  }
  await attempt.succeeded();
}

/**
 * Turns two-factor authentication off (credential and recovery codes deleted).
 * @throws AppError TWO_FACTOR_NOT_ENABLED, INVALID_TWO_FACTOR_CODE, INVALID_CREDENTIALS, RATE_LIMITED
 *   SESSION_LIMITED_TO_WORKSPACE (a workspace provider's session of an account in other workspaces too)
 */
export async function disable(deps: TwoFactorDeps, s: SessionAuth, proof: { code?: string; password?: string }, address: string | null) {
  await checkProof(deps, s, proof, address);
  await deps.db.transaction().execute(async (trx) => {
    await repo.deleteTwoFactor(trx, s.user.uuid);
    await auditForUser(trx, s.user, "two_factor.disabled", address);
  });
}

/**
 * Replaces the recovery codes by 10 new ones (the old ones stop working).
 * @returns the new codes, shown once
 * @throws AppError TWO_FACTOR_NOT_ENABLED, INVALID_TWO_FACTOR_CODE, INVALID_CREDENTIALS, RATE_LIMITED
 *   SESSION_LIMITED_TO_WORKSPACE (a workspace provider's session of an account in other workspaces too)
 */
export async function regenerateRecoveryCodes(deps: TwoFactorDeps, s: SessionAuth, proof: { code?: string; password?: string }, address: string | null) {
  await checkProof(deps, s, proof, address);
  return deps.db.transaction().execute(async (trx) => {
    const issued = await issueRecoveryCodes(deps, trx, s.user.uuid);
    await auditForUser(trx, s.user, "two_factor.recovery_codes_regenerated", address);
    return issued;
  });
}

/**
 * Sets whether the workspace requires two-factor authentication (owners and admins:
 * `members:write`). A person turning it on must use it themselves, so nobody locks the
 * workspace with a requirement they could not meet.
 * @throws AppError TWO_FACTOR_NOT_ENABLED (a user without it turning it on)
 */
export async function setRequirement(deps: TwoFactorDeps, auth: AuthContext, required: boolean) {
  if (required && auth.actor.type === "user" && auth.actor.uuid && !(await repo.findCredential(deps.db, auth.actor.uuid))?.enabled_at) {
    throw new AppError("TWO_FACTOR_NOT_ENABLED", "Turn on two-factor authentication for your own account before requiring it of the workspace.");
  }
  const was = await repo.isRequiredBy(deps.db, auth.workspaceUuid);
  if (was !== required) {
    await deps.db.transaction().execute(async (trx) => {
      await repo.setRequired(trx, auth.workspaceUuid, required, deps.clock.nowIso());
      await recordByAuth(trx, auth, required ? "workspace.two_factor_required" : "workspace.two_factor_not_required", {
        type: "workspace",
        uuid: auth.workspaceUuid,
        label: auth.workspace.name,
      });
    });
  }
  return { required };
}
