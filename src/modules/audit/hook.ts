/**
 * @module audit/hook
 * Central audit recording for the API endpoints that do not write their own entries. Which
 * endpoints are audited, and as what, is part of each endpoint's declaration (`audit` in its
 * `modules/<feature>/operations.ts`); after a successful request the auth plugin
 * (http/auth-plugin.ts) re-checks the credential, then hands the action and its target to the
 * recorder built here — it reaches the plugin as `AppDeps.audit` (wired by src/app-deps.ts).
 * Written after the handler's own transaction (best effort: a failure is logged, the answer stands).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Logger } from "../../logger.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import type { AuditTarget } from "../../http/operation.ts";
import { AUDIT_ACTIONS, recordByAuth, type AuditAction } from "./service.ts";

const KNOWN = new Set<string>(AUDIT_ACTIONS);

/** Whether `action` is one the audit log knows (every declaration's `audit.action` must be). */
export function isAuditAction(action: string): action is AuditAction {
  return KNOWN.has(action);
}

/**
 * The recorder of audited actions: writes one audit entry for `auth`'s actor. Never throws: a
 * failure (or an action the log does not know) is logged and the request's answer stands.
 * @returns the recorder
 */
export function auditRecorder(db: Kysely<Database>, log: Logger) {
  return async (auth: AuthContext, action: string, target: AuditTarget): Promise<void> => {
    try {
      if (!isAuditAction(action)) throw new Error(`unknown audit action ${action}`);
      await recordByAuth(db, auth, action, target);
    } catch (err) {
      log.error("could not write an audit entry", { action, error: err instanceof Error ? err.message : String(err) });
    }
  };
}
