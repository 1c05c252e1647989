/**
 * @module workspaces/repository
 * Kysely queries for workspaces and their daily API call counters.
 */
import type { Executor } from "../../db/schema.ts";
import type { WorkspaceRow } from "../../auth/repository.ts";

// The reads authentication makes live in auth/repository.ts (src/auth/ imports no feature).
export { addApiCalls, findWorkspaceByUuid, type WorkspaceRow } from "../../auth/repository.ts";

export function insertWorkspace(db: Executor, row: Omit<WorkspaceRow, "keys_created">) {
  return db.insertInto("workspaces").values(row).execute();
}

export function findWorkspaceBySlug(db: Executor, slug: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("slug", "=", slug).executeTakeFirst();
}

export function findWorkspaceByHost(db: Executor, host: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("host", "=", host).executeTakeFirst();
}

export function listWorkspaces(db: Executor): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().orderBy("date_created").execute();
}

/** The workspaces that have a dedicated origin (`host`), oldest first. */
export function listWorkspacesWithHost(db: Executor): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().where("host", "is not", null).orderBy("date_created").execute();
}

export async function workspaceSlugsLike(db: Executor, base: string): Promise<string[]> {
  const rows = await db.selectFrom("workspaces").select("slug").where("slug", "like", `${base}%`).execute();
  return rows.map((r) => r.slug);
}

export function countWorkspaces(db: Executor): Promise<number> {
  return db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export async function apiCallsOn(db: Executor, workspaceUuid: string, day: string): Promise<number> {
  const row = await db.selectFrom("api_call_counters").select("calls").where("workspace_uuid", "=", workspaceUuid).where("day", "=", day).executeTakeFirst();
  return row?.calls ?? 0;
}

export function updateWorkspace(
  db: Executor,
  uuid: string,
  patch: Partial<Pick<WorkspaceRow, "name" | "host" | "plan" | "links_limit" | "requests_per_minute" | "retention" | "embed_origins">>,
) {
  return db.updateTable("workspaces").set(patch).where("uuid", "=", uuid).execute();
}

/** The workspace's change counter (0 before its first change); raised by triggers (migration 2026-11-26T0100). */
export async function workspaceVersion(db: Executor, workspaceUuid: string): Promise<number> {
  const row = await db.selectFrom("workspace_changes").select("version").where("workspace_uuid", "=", workspaceUuid).executeTakeFirst();
  return row?.version ?? 0;
}

/** How many links the workspace has (its usage, and the plan's link limit). */
export async function countLinks(db: Executor, workspaceUuid: string): Promise<number> {
  const r = await db
    .selectFrom("links")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
