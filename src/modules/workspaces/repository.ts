/**
 * @module workspaces/repository
 * Kysely queries for workspaces and their daily API call counters.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { WorkspaceRow } from "../../auth/repository.ts";

// The reads authentication makes live in auth/repository.ts (src/auth/ imports no feature).
export { addApiCalls, findWorkspaceByUuid, type WorkspaceRow } from "../../auth/repository.ts";

type Q = Kysely<Database> | Transaction<Database>;

export function insertWorkspace(db: Q, row: Omit<WorkspaceRow, "keys_created">) {
  return db.insertInto("workspaces").values(row).execute();
}

export function findWorkspaceBySlug(db: Q, slug: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("slug", "=", slug).executeTakeFirst();
}

export function findWorkspaceByHost(db: Q, host: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("host", "=", host).executeTakeFirst();
}

export function listWorkspaces(db: Q): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().orderBy("date_created").execute();
}

/** The workspaces that have a dedicated origin (`host`), oldest first. */
export function listWorkspacesWithHost(db: Q): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().where("host", "is not", null).orderBy("date_created").execute();
}

export async function workspaceSlugsLike(db: Q, base: string): Promise<string[]> {
  const rows = await db.selectFrom("workspaces").select("slug").where("slug", "like", `${base}%`).execute();
  return rows.map((r) => r.slug);
}

export function countWorkspaces(db: Q): Promise<number> {
  return db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export function incrementKeysCreated(db: Q, uuid: string) {
  return db
    .updateTable("workspaces")
    .set((eb) => ({ keys_created: eb("keys_created", "+", 1) }))
    .where("uuid", "=", uuid)
    .execute();
}

export async function apiCallsOn(db: Q, workspaceUuid: string, day: string): Promise<number> {
  const row = await db.selectFrom("api_call_counters").select("calls").where("workspace_uuid", "=", workspaceUuid).where("day", "=", day).executeTakeFirst();
  return row?.calls ?? 0;
}

export function updateWorkspace(
  db: Q,
  uuid: string,
  patch: Partial<Pick<WorkspaceRow, "name" | "host" | "plan" | "links_limit" | "requests_per_minute" | "retention">>,
) {
  return db.updateTable("workspaces").set(patch).where("uuid", "=", uuid).execute();
}
