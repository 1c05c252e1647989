/**
 * @module themes/repository
 * Kysely queries of themes (DESIGN §12): the `themes` and `theme_builds` tables and the theme
 * columns of `answers` (migration 2026-12-02T0000).
 */
import { type Selectable, sql } from "kysely";
import type { Database, ThemeBuildTable, ThemeTable, Executor } from "../../db/schema.ts";
import { jsonValue } from "../../db/json.ts";
import { prepared } from "../../db/prepared.ts";
import { OPEN_TYPES } from "../../shared/question-types.ts";

export type ThemeRow = ThemeTable;
export type ThemeBuildRow = Selectable<ThemeBuildTable>;

/** Rows read/written per statement when answers are (re)assigned in bulk. */
const BATCH = 500;

export function findTheme(db: Executor, linkUuid: string, uuid: string): Promise<ThemeRow | undefined> {
  return db.selectFrom("themes").selectAll().where("link_uuid", "=", linkUuid).where("uuid", "=", uuid).executeTakeFirst();
}

export function findThemeByUuid(db: Executor, uuid: string): Promise<ThemeRow | undefined> {
  return db.selectFrom("themes").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

/** Themes of a link (optionally of one question). */
export function themesOf(db: Executor, linkUuid: string, questionUuid?: string): Promise<ThemeRow[]> {
  let q = db.selectFrom("themes").selectAll().where("link_uuid", "=", linkUuid);
  if (questionUuid) q = q.where("question_uuid", "=", questionUuid);
  return q.orderBy("date_created").orderBy("uuid").execute();
}

/** uuid → label of these themes. */
export async function labelsOf(db: Executor, uuids: string[]): Promise<Map<string, string>> {
  if (!uuids.length) return new Map();
  const rows = await db.selectFrom("themes").select(["uuid", "label"]).where("uuid", "in", uuids).execute();
  return new Map(rows.map((r) => [r.uuid, r.label]));
}

export async function insertTheme(db: Executor, row: ThemeRow): Promise<void> {
  await db.insertInto("themes").values(row).execute();
}

export async function updateTheme(db: Executor, uuid: string, patch: Partial<Omit<ThemeRow, "uuid">>): Promise<void> {
  await db.updateTable("themes").set(patch).where("uuid", "=", uuid).execute();
}

export async function deleteThemes(db: Executor, uuids: string[]): Promise<void> {
  if (!uuids.length) return;
  await db.deleteFrom("themes").where("uuid", "in", uuids).execute();
}

/** What the per-theme numbers are computed from: one row per answer of these themes. */
export function memberStats(db: Executor, themeUuids: string[]) {
  return db
    .selectFrom("answers")
    .select([
      "answers.theme_uuid",
      "answers.date_created",
      jsonValue<string | null>(db, "answers.ai_insights", "$.sentiment").as("sentiment"),
      jsonValue<unknown>(db, "answers.ai_insights", "$.actionable").as("actionable"),
    ])
    .where("answers.theme_uuid", "in", themeUuids.length ? themeUuids : [""])
    .execute();
}

/** Analysed answers (insights present) of one question: the denominator of `share`. */
export async function countAnalysed(db: Executor, questionUuid: string): Promise<number> {
  const r = await db
    .selectFrom("answers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("question_uuid", "=", questionUuid)
    .where("analysis_status", "=", "completed")
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Answers by uuid with what quotes need (response, recording, segments). */
export function quoteSources(db: Executor, answerUuids: string[]) {
  if (!answerUuids.length) return Promise.resolve([]);
  return db
    .selectFrom("answers")
    .select(["uuid", "response_uuid", "audio_blob", "segments", "transcription", "text", "follow_ups"])
    .where("uuid", "in", answerUuids)
    .execute();
}

/** An answer of a link's response (for moves and examples), or undefined. */
export function findAnswerOfLink(db: Executor, linkUuid: string, answerUuid: string) {
  return db
    .selectFrom("answers")
    .innerJoin("responses", "responses.uuid", "answers.response_uuid")
    .select(["answers.uuid", "answers.question_uuid", "answers.theme_uuid", "answers.embedding"])
    .where("responses.link_uuid", "=", linkUuid)
    .where("answers.uuid", "=", answerUuid)
    .executeTakeFirst();
}

/** A question's prompt (what the LLM labels are asked in the light of), or null when it is gone. */
export async function questionPrompt(db: Executor, questionUuid: string): Promise<string | null> {
  const row = await db.selectFrom("questions").select("prompt").where("uuid", "=", questionUuid).executeTakeFirst();
  return row?.prompt ?? null;
}

/** Replaces an answer's theme vector (little-endian Float32 bytes) and the id of the engine that made it. */
export async function storeEmbedding(db: Executor, answerUuid: string, embedding: Uint8Array, engine: string): Promise<void> {
  await db.updateTable("answers").set({ embedding, embedding_engine: engine }).where("uuid", "=", answerUuid).execute();
}

/** Sets the theme of answers (batched); `onlyAuto` leaves answers an operator placed alone. */
export async function assignAnswers(
  db: Executor,
  answerUuids: string[],
  themeUuid: string | null,
  source: "auto" | "operator",
  onlyAuto = false,
): Promise<void> {
  for (let i = 0; i < answerUuids.length; i += BATCH) {
    let q = db
      .updateTable("answers")
      .set({ theme_uuid: themeUuid, theme_source: source })
      .where("uuid", "in", answerUuids.slice(i, i + BATCH));
    if (onlyAuto) q = q.where((eb) => eb.or([eb("theme_source", "is", null), eb("theme_source", "=", "auto")]));
    await q.execute();
  }
}

/** The current theme of each answer of `answerUuids` (batched). */
export async function themesOfAnswers(db: Executor, answerUuids: string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (let i = 0; i < answerUuids.length; i += BATCH) {
    const rows = await db
      .selectFrom("answers")
      .select(["uuid", "theme_uuid"])
      .where("uuid", "in", answerUuids.slice(i, i + BATCH))
      .execute();
    for (const r of rows) out.set(r.uuid, r.theme_uuid ?? null);
  }
  return out;
}

/** Moves every answer of `from` to `to` (a merge or a delete: `to` null), keeping their source unless given. */
export async function reassignTheme(db: Executor, from: string, to: string | null, source?: "auto" | "operator"): Promise<void> {
  await db
    .updateTable("answers")
    .set(source ? { theme_uuid: to, theme_source: source } : { theme_uuid: to })
    .where("theme_uuid", "=", from)
    .execute();
}

/** The embedded answers of one question, for a rebuild. */
export function embeddedAnswers(db: Executor, questionUuid: string) {
  return db
    .selectFrom("answers")
    .select([
      "uuid",
      "text",
      "transcription",
      "translation",
      "follow_ups",
      "embedding",
      "follow_up_embeddings",
      "embedding_engine",
      "theme_uuid",
      "theme_source",
    ])
    .where("question_uuid", "=", questionUuid)
    .where("embedding", "is not", null)
    .orderBy("date_created")
    .orderBy("uuid")
    .execute();
}

export function findBuild(db: Executor, linkUuid: string, questionUuid: string): Promise<ThemeBuildRow | undefined> {
  return db.selectFrom("theme_builds").selectAll().where("link_uuid", "=", linkUuid).where("question_uuid", "=", questionUuid).executeTakeFirst();
}

export function buildsOf(db: Executor, linkUuid: string): Promise<ThemeBuildRow[]> {
  return db.selectFrom("theme_builds").selectAll().where("link_uuid", "=", linkUuid).execute();
}

/** Creates the build row of a question when it has none (answers_since 0, never built). */
export async function ensureBuild(db: Executor, row: Pick<ThemeBuildRow, "link_uuid" | "question_uuid" | "workspace_uuid">, now: string): Promise<void> {
  await db
    .insertInto("theme_builds")
    .values({ ...row, engine: null, components: null, threshold: 0, answers_built: 0, answers_since: 0, rebuild_queued: 0, built_at: null, date_updated: now })
    .onConflict((oc) => oc.columns(["link_uuid", "question_uuid"]).doNothing())
    .execute();
}

export async function updateBuild(db: Executor, linkUuid: string, questionUuid: string, patch: Partial<ThemeBuildRow>): Promise<void> {
  await db.updateTable("theme_builds").set(patch).where("link_uuid", "=", linkUuid).where("question_uuid", "=", questionUuid).execute();
}

/** The build row columns the analyse job reads per answer (not the components' bytes). */
export type BuildCount = Pick<ThemeBuildRow, "answers_since" | "answers_built" | "rebuild_queued" | "built_at" | "engine" | "threshold" | "centres_version">;

/**
 * Counts one more analysed answer since the last build; returns what the analyse job needs of the
 * row as it now reads (undefined: no row). On PostgreSQL this takes the row's write lock for the
 * rest of the transaction (themes/model-cache.ts relies on it).
 */
export async function countNewAnswer(db: Executor, linkUuid: string, questionUuid: string): Promise<BuildCount | undefined> {
  return (await countNewAnswerQuery(db, linkUuid, questionUuid))[0];
}

// Compiled once (db/prepared.ts): run for every analysed answer, where compiling cost more than running.
const countNewAnswerQuery = prepared(2, (db, linkUuid: string, questionUuid: string) =>
  db
    .updateTable("theme_builds")
    .set({ answers_since: sql<number>`answers_since + 1` })
    .where("link_uuid", "=", linkUuid)
    .where("question_uuid", "=", questionUuid)
    .returning(["answers_since", "answers_built", "rebuild_queued", "built_at", "engine", "threshold", "centres_version"]),
);

/** A build's common components (concatenated Float32 bytes), or null. */
export async function componentsOf(db: Executor, linkUuid: string, questionUuid: string): Promise<Uint8Array | null> {
  const row = await db
    .selectFrom("theme_builds")
    .select("components")
    .where("link_uuid", "=", linkUuid)
    .where("question_uuid", "=", questionUuid)
    .executeTakeFirst();
  return row?.components ?? null;
}

/**
 * The analyse job's write of a newly analysed answer, with its theme in the same statement: the
 * theme is set (source `auto`) unless an operator placed the answer (`theme_source = operator`,
 * which keeps its place), exactly as {@link assignAnswers} with `onlyAuto` would.
 * @param patch the answer's other columns; `themeUuid` null leaves the theme columns alone.
 */
export async function updateAnalysedAnswer(
  db: Executor,
  answerUuid: string,
  patch: Partial<Omit<Selectable<Database["answers"]>, "uuid">>,
  themeUuid: string | null,
): Promise<void> {
  await db
    .updateTable("answers")
    .set(patch)
    .$if(themeUuid !== null, (q) =>
      q.set((eb) => ({
        theme_uuid: eb.case().when("theme_source", "=", "operator").then(eb.ref("theme_uuid")).else(themeUuid).end(),
        theme_source: eb.case().when("theme_source", "=", "operator").then(eb.ref("theme_source")).else(eb.val<"auto" | "operator">("auto")).end(),
      })),
    )
    .where("uuid", "=", answerUuid)
    .execute();
}

/** The centres of a question's themes (those that have one). */
export function centresOf(db: Executor, linkUuid: string, questionUuid: string) {
  return db
    .selectFrom("themes")
    .select(["uuid", "centre"])
    .where("link_uuid", "=", linkUuid)
    .where("question_uuid", "=", questionUuid)
    .where("centre", "is not", null)
    .execute();
}

/** The link's themed questions' answers: total with text, assigned, not analysed yet. */
export async function answerCounts(db: Executor, linkUuid: string, questionUuids: string[]) {
  if (!questionUuids.length) return { total: 0, assigned: 0, pending: 0 };
  const r = await db
    .selectFrom("answers")
    .innerJoin("responses", "responses.uuid", "answers.response_uuid")
    .select((eb) => [
      eb.fn.countAll<number>().as("total"),
      eb.fn.count<number>("answers.theme_uuid").as("assigned"),
      eb.fn.sum<number>(eb.case().when("answers.analysis_status", "=", "pending").then(1).else(0).end()).as("pending"),
    ])
    .where("responses.link_uuid", "=", linkUuid)
    .where("answers.question_uuid", "in", questionUuids)
    .where("answers.analysis_status", "in", ["pending", "completed"])
    .executeTakeFirstOrThrow();
  return { total: Number(r.total), assigned: Number(r.assigned), pending: Number(r.pending ?? 0) };
}

/** Analysed answers of the link's themed questions in [since, until) (by answer creation): theme, sentiment, response. */
export function answersInPeriod(db: Executor, linkUuid: string, questionUuids: string[], since: string, until: string) {
  return db
    .selectFrom("answers")
    .innerJoin("responses", "responses.uuid", "answers.response_uuid")
    .select(["answers.uuid", "answers.theme_uuid", jsonValue<string | null>(db, "answers.ai_insights", "$.sentiment").as("sentiment")])
    .where("responses.link_uuid", "=", linkUuid)
    .where("answers.question_uuid", "in", questionUuids.length ? questionUuids : [""])
    .where("answers.analysis_status", "=", "completed")
    .where("answers.date_created", ">=", since)
    .where("answers.date_created", "<", until)
    .execute();
}

/** Completed responses of a link submitted in [since, until). */
export async function countResponses(db: Executor, linkUuid: string, since: string, until: string): Promise<number> {
  const r = await db
    .selectFrom("responses")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("link_uuid", "=", linkUuid)
    .where("status", "=", "completed")
    .where("submitted_at", ">=", since)
    .where("submitted_at", "<", until)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Earliest answer date of each of these themes (for "new themes"). */
export async function firstSeen(db: Executor, themeUuids: string[]): Promise<Map<string, string>> {
  if (!themeUuids.length) return new Map();
  const rows = await db
    .selectFrom("answers")
    .select(["theme_uuid", (eb) => eb.fn.min<string>("date_created").as("first")])
    .where("theme_uuid", "in", themeUuids)
    .groupBy("theme_uuid")
    .execute();
  return new Map(rows.map((r) => [r.theme_uuid!, r.first]));
}

/** Distinct field keys of the workspace's open questions (the workspace export's theme columns). */
export async function openFieldKeysOfWorkspace(db: Executor, workspaceUuid: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom("questions")
    .innerJoin("links", "links.uuid", "questions.link_uuid")
    .where("links.workspace_uuid", "=", workspaceUuid)
    .where("questions.type", "in", [...OPEN_TYPES])
    .select("questions.field_key")
    .execute();
  return new Set(rows.map((r) => r.field_key));
}

/** Themes whose stored quotes or examples name one of these answers (erasure). */
export function themesNaming(db: Executor, answerUuids: string[]) {
  if (!answerUuids.length) return Promise.resolve([]);
  return db
    .selectFrom("themes")
    .select(["uuid", "quotes", "examples"])
    .where((eb) => eb.or(answerUuids.flatMap((u) => [eb("quotes", "like", `%${u}%`), eb("examples", "like", `%${u}%`)])))
    .execute();
}
