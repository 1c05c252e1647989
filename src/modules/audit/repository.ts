/**
 * @module audit/repository
 * Kysely queries for the audit log: append, and filtered pages newest first (indexed by
 * workspace + time, workspace + action + time, workspace + actor + time).
 */
import type { AuditLogTable, Executor } from "../../db/schema.ts";

export type AuditRow = AuditLogTable;
export type AuditFilter = { workspaceUuid: string; action?: string; actionPrefix?: string; actor?: string; since?: string; until?: string };

export function insertAudit(db: Executor, row: AuditRow) {
  return db.insertInto("audit_log").values(row).execute();
}

function filtered(db: Executor, f: AuditFilter) {
  let q = db.selectFrom("audit_log").where("workspace_uuid", "=", f.workspaceUuid);
  if (f.action) q = q.where("action", "=", f.action);
  if (f.actionPrefix) q = q.where("action", ">=", f.actionPrefix).where("action", "<", f.actionPrefix + "\uffff");
  if (f.actor) q = q.where((eb) => eb.or([eb("actor_uuid", "=", f.actor!), eb("actor_name", "=", f.actor!)]));
  if (f.since) q = q.where("time", ">=", f.since);
  if (f.until) q = q.where("time", "<", f.until);
  return q;
}

export function listAudit(db: Executor, f: AuditFilter, limit: number, offset: number): Promise<AuditRow[]> {
  return filtered(db, f).selectAll().orderBy("time", "desc").orderBy("uuid", "desc").limit(limit).offset(offset).execute();
}

export async function countAudit(db: Executor, f: AuditFilter): Promise<number> {
  const r = await filtered(db, f)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Deletes audit rows outside any workspace (failed sign-ins with an unknown email): those older
 * than `beforeIso`, then all but the newest `keep`. Nobody can list them through the API, and
 * anyone can create them, so they must not grow without bound.
 * @returns rows deleted
 */
export async function pruneUnownedAudit(db: Executor, beforeIso: string, keep: number): Promise<number> {
  const old = await db.deleteFrom("audit_log").where("workspace_uuid", "is", null).where("time", "<", beforeIso).executeTakeFirst();
  const newest = db.selectFrom("audit_log").select("uuid").where("workspace_uuid", "is", null).orderBy("time", "desc").limit(keep);
  const over = await db.deleteFrom("audit_log").where("workspace_uuid", "is", null).where("uuid", "not in", newest).executeTakeFirst();
  return Number(old.numDeletedRows) + Number(over.numDeletedRows);
}
