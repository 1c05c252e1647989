/**
 * @module links/repository
 * Kysely queries for links and their questions.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { LinkTable, QuestionTable, Executor } from "../../db/schema.ts";
import { prepared } from "../../db/prepared.ts";

export type LinkRow = LinkTable;
export type QuestionRow = QuestionTable;

export function insertLink(db: Executor, row: LinkRow) {
  return db.insertInto("links").values(row).execute();
}

export function updateLink(db: Executor, uuid: string, patch: Partial<Omit<LinkRow, "uuid" | "workspace_uuid">>) {
  return db.updateTable("links").set(patch).where("uuid", "=", uuid).execute();
}

export function deleteLink(db: Executor, uuid: string) {
  return db.deleteFrom("links").where("uuid", "=", uuid).execute();
}

// The reads of `GET links/{uuid}/` and `GET links/`, compiled once (db/prepared.ts; issue 14): Kysely
// building and compiling them cost more than SQLite running them (bench/api.ts).
const linkByUuid = prepared(2, (db, workspaceUuid: string, uuid: string) =>
  db.selectFrom("links").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid),
);

/** A query over `n` link uuids compiled once per `n` (page sizes repeat, so few are kept). */
function perLength<Row>(build: (db: Executor, ...params: string[]) => import("kysely").Compilable<Row>) {
  const byLength = new Map<number, (db: Executor, ...params: string[]) => Promise<Row[]>>();
  return (db: Executor, ...params: string[]) => {
    let run = byLength.get(params.length);
    if (!run) byLength.set(params.length, (run = prepared(params.length, build)));
    return run(db, ...params);
  };
}
const questionsOfLinks = perLength((db, ...uuids) =>
  db.selectFrom("questions").selectAll().where("link_uuid", "in", uuids).orderBy("order").orderBy("position"),
);
/** Parameters: the status (`completed`), then the link uuids. */
const countsOfLinks = perLength((db, status, ...uuids) =>
  db
    .selectFrom("responses")
    .select(["link_uuid", (eb) => eb.fn.countAll<number>().as("n")])
    .where("status", "=", status as "completed")
    .where("link_uuid", "in", uuids)
    .groupBy("link_uuid"),
);

/** One link's count without GROUP BY, which costs SQLite ~15–20 µs more even on an empty table. */
const countOfLink = prepared(2, (db, status: string, uuid: string) =>
  db
    .selectFrom("responses")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", status as "completed")
    .where("link_uuid", "=", uuid),
);

export async function findLink(db: Executor, workspaceUuid: string, uuid: string): Promise<LinkRow | undefined> {
  return (await linkByUuid(db, workspaceUuid, uuid))[0];
}

export function findLinkBySlug(db: Executor, workspaceUuid: string, slug: string): Promise<LinkRow | undefined> {
  return db.selectFrom("links").selectAll().where("workspace_uuid", "=", workspaceUuid).where("slug", "=", slug).executeTakeFirst();
}

export async function linkSlugsLike(db: Executor, workspaceUuid: string, base: string): Promise<string[]> {
  const rows = await db.selectFrom("links").select("slug").where("workspace_uuid", "=", workspaceUuid).where("slug", "like", `${base}%`).execute();
  return rows.map((r) => r.slug);
}

/** Removes a link's invitations (the link is being deleted). */
export async function deleteInvitationsOfLink(db: Executor, linkUuid: string): Promise<void> {
  await db.deleteFrom("invitations").where("link_uuid", "=", linkUuid).execute();
}

export type LinkListFilter = {
  status: "active" | "paused" | "all";
  search?: string;
  orderBy: "date_created" | "name" | "date_updated";
  direction: "asc" | "desc";
};

/**
 * `column` contains `text` literally, case-insensitively: `%`, `_` and `\` in `text` are escaped
 * and the pattern says `ESCAPE '\'` (SQLite has no default escape character). `lower()` on both
 * sides, in SQL, keeps it case-insensitive on PostgreSQL too (its LIKE is case-sensitive) and
 * folds both sides alike on SQLite (whose `lower()` folds ASCII only).
 */
function containsLiterally(column: "name" | "slug", text: string): Expression<SqlBool> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
}

function filtered(db: Executor, workspaceUuid: string, f: LinkListFilter) {
  let q = db.selectFrom("links").where("workspace_uuid", "=", workspaceUuid);
  if (f.status !== "all") q = q.where("status", "=", f.status);
  if (f.search) {
    const search = f.search;
    q = q.where((eb) => eb.or([containsLiterally("name", search), containsLiterally("slug", search)]));
  }
  return q;
}

/** The unfiltered page (status all, no search) per ordering, compiled once: the console's and most clients' list. */
const pagesOfAll = new Map<string, (db: Executor, workspaceUuid: string, limit: number, offset: number) => Promise<LinkRow[]>>();
const countOfAll = prepared(1, (db, workspaceUuid: string) =>
  db
    .selectFrom("links")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid),
);

function pageOfAll(orderBy: LinkListFilter["orderBy"], direction: LinkListFilter["direction"]) {
  const key = `${orderBy} ${direction}`;
  let run = pagesOfAll.get(key);
  if (!run) {
    run = prepared(3, (db, workspaceUuid: string, limit: number, offset: number) =>
      db.selectFrom("links").selectAll().where("workspace_uuid", "=", workspaceUuid).orderBy(orderBy, direction).orderBy("uuid").limit(limit).offset(offset),
    );
    pagesOfAll.set(key, run);
  }
  return run;
}

export async function listLinks(db: Executor, workspaceUuid: string, f: LinkListFilter, limit: number, offset: number) {
  if (f.status === "all" && !f.search) {
    const [rows, [total]] = await Promise.all([pageOfAll(f.orderBy, f.direction)(db, workspaceUuid, limit, offset), countOfAll(db, workspaceUuid)]);
    return { rows, count: Number(total?.n ?? 0) };
  }
  const [rows, count] = await Promise.all([
    filtered(db, workspaceUuid, f).selectAll().orderBy(f.orderBy, f.direction).orderBy("uuid").limit(limit).offset(offset).execute(),
    filtered(db, workspaceUuid, f)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n)),
  ]);
  return { rows, count };
}

export function insertQuestions(db: Executor, rows: QuestionRow[]) {
  if (!rows.length) return Promise.resolve();
  return db.insertInto("questions").values(rows).execute();
}

export function deleteQuestionsOf(db: Executor, linkUuid: string) {
  return db.deleteFrom("questions").where("link_uuid", "=", linkUuid).execute();
}

export function questionsOf(db: Executor, linkUuids: string[]): Promise<QuestionRow[]> {
  if (!linkUuids.length) return Promise.resolve([]);
  return questionsOfLinks(db, ...linkUuids);
}

/** Completed responses per link. */
export async function responseCounts(db: Executor, linkUuids: string[]): Promise<Map<string, number>> {
  if (!linkUuids.length) return new Map();
  if (linkUuids.length === 1) {
    const [one] = await countOfLink(db, "completed", linkUuids[0]!);
    return new Map([[linkUuids[0]!, Number(one?.n ?? 0)]]);
  }
  const rows = await countsOfLinks(db, "completed", ...linkUuids);
  return new Map(rows.map((r) => [r.link_uuid, Number(r.n)]));
}

/** Uuids of the current questions with this `field_key`, of one link or of every link of the workspace. */
export async function questionUuidsByFieldKey(db: Executor, workspaceUuid: string, linkUuid: string | undefined, fieldKey: string): Promise<string[]> {
  let q = db
    .selectFrom("questions")
    .innerJoin("links", "links.uuid", "questions.link_uuid")
    .select("questions.uuid")
    .where("links.workspace_uuid", "=", workspaceUuid)
    .where("questions.field_key", "=", fieldKey);
  if (linkUuid !== undefined) q = q.where("links.uuid", "=", linkUuid);
  return (await q.execute()).map((r) => r.uuid);
}

/**
 * Every distinct `field_key` of the workspace's links' questions, oldest link first, each link's
 * questions in their order (the workspace-wide export's CSV columns).
 */
export async function fieldKeysOfWorkspace(db: Executor, workspaceUuid: string): Promise<string[]> {
  const rows = await db
    .selectFrom("questions")
    .innerJoin("links", "links.uuid", "questions.link_uuid")
    .where("links.workspace_uuid", "=", workspaceUuid)
    .select("questions.field_key")
    .orderBy("links.date_created")
    .orderBy("links.uuid")
    .orderBy("questions.order")
    .execute();
  return [...new Set(rows.map((r) => r.field_key))];
}
