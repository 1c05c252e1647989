/**
 * @module two-factor/sign-in
 * The second sign-in step (issue 28; docs/console.md "Two-factor authentication"). After a correct
 * password, a user with two-factor on gets no session but 401 TWO_FACTOR_REQUIRED with a ticket:
 * 32 random bytes, single use, 5 minutes, only its hash stored. `POST auth/two-factor/` with the
 * ticket and the current code (or a recovery code) then starts the session exactly as a password
 * sign-in does. Wrong codes count against the user's second-factor throttle (5 per 15 minutes),
 * and a time step once used is refused (no replay within the ±30 s window). Single sign-on asks
 * for the same step: its callback gets the ticket and hands it over in a cookie (ticket-cookie.ts).
 */
import { randomSecret } from "../../auth/sessions.ts";
import { AppError } from "../../errors.ts";
import { findUserByUuid, type UserRow } from "../users/repository.ts";
import { startSignedInSession, type SecondFactorGate, type StartedSession } from "../users/service.ts";
import { acceptCode, auditForUser, beginAttempt, invalidCode, type TwoFactorDeps } from "./common.ts";
import * as repo from "./repository.ts";
import { recoveryCodeHash, sha256 } from "./secrets.ts";

/** How long a second-factor ticket lasts. */
export const TICKET_TTL_S = 5 * 60;

const TICKET_INVALID = "This sign-in expired or was completed already; sign in again.";

/** The gate users/service.ts calls after a correct password (wired by app.ts). */
export function secondFactorGate(deps: TwoFactorDeps): SecondFactorGate {
  return {
    async isRequired(userUuid) {
      return !!(await repo.findCredential(deps.db, userUuid))?.enabled_at;
    },
    async challenge(user: UserRow, limitedTo?: string | null): Promise<never> {
      const ticket = randomSecret();
      const expiresAt = deps.clock.isoAfter(TICKET_TTL_S);
      const row = { ticket_hash: sha256(ticket), user_uuid: user.uuid, expires_at: expiresAt, limited_to_workspace_uuid: limitedTo ?? null };
      await repo.insertChallenge(deps.db, row, deps.clock.nowIso());
      throw new AppError("TWO_FACTOR_REQUIRED", "Enter the code from your authentication app (or a recovery code) to finish signing in.", {
        extensions: { ticket, expires_at: expiresAt },
      });
    },
  };
}

/**
 * Finishes a sign-in with the ticket and the current code or a recovery code.
 * @param input.ticket from the TWO_FACTOR_REQUIRED answer, or (single sign-on) the ticket cookie
 * @param previousIdHash the session the browser held before, ended now
 * @throws AppError TWO_FACTOR_TICKET_INVALID, INVALID_TWO_FACTOR_CODE, RATE_LIMITED
 */
export async function completeSignIn(
  deps: TwoFactorDeps,
  input: { ticket?: string; code?: string; recovery_code?: string },
  address: string | null,
  previousIdHash: string | null,
): Promise<StartedSession> {
  if (!input.ticket) throw new AppError("TWO_FACTOR_TICKET_INVALID", TICKET_INVALID);
  const ticketHash = sha256(input.ticket);
  const challenge = await repo.findLiveChallenge(deps.db, ticketHash, deps.clock.nowIso());
  const user = challenge && (await findUserByUuid(deps.db, challenge.user_uuid));
  const cred = user && (await repo.findCredential(deps.db, user.uuid));
  if (!challenge || !user || user.disabled || !cred?.enabled_at) throw new AppError("TWO_FACTOR_TICKET_INVALID", TICKET_INVALID);
  const attempt = await beginAttempt(deps, user.uuid, address);
  let usedRecoveryCode = false;
  if (input.code !== undefined) {
    const step = await acceptCode(deps, cred, input.code);
    if (step === null || !(await repo.useTimeStep(deps.db, user.uuid, step))) {
      await auditForUser(deps.db, user, "two_factor.code_failed", address);
      throw invalidCode();
    }
  } else {
    if (!(await repo.useRecoveryCode(deps.db, user.uuid, recoveryCodeHash(input.recovery_code ?? ""), deps.clock.nowIso()))) {
      await auditForUser(deps.db, user, "two_factor.code_failed", address);
      throw invalidCode("recovery code");
    }
    usedRecoveryCode = true;
  }
  await attempt.succeeded();
  if (!(await repo.useChallenge(deps.db, ticketHash, deps.clock.nowIso()))) throw new AppError("TWO_FACTOR_TICKET_INVALID", TICKET_INVALID);
  if (usedRecoveryCode) await auditForUser(deps.db, user, "two_factor.recovery_code_used", address);
  // A ticket from a workspace's own provider starts a session limited to that workspace.
  return startSignedInSession(deps.db, user, address, previousIdHash, challenge.limited_to_workspace_uuid ?? null);
}
