/**
 * @module intake/repository
 * The reads every intake request makes (the link by its slugs, its questions, the session's
 * response and answer), as Kysely queries compiled once (db/prepared.ts): a respondent's five
 * requests run about twenty of them (bench/intake.ts). Same queries as the links and responses
 * repositories' `findLinkBySlug`, `questionsOf`, `findResponseBySession` and `findAnswerOf`.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { prepared } from "../../db/prepared.ts";
import type { WorkspaceRow } from "../workspaces/repository.ts";
import type { LinkRow, QuestionRow } from "../links/repository.ts";
import type { AnswerRow, ResponseRow } from "../responses/repository.ts";

type Q = Kysely<Database> | Transaction<Database>;

const workspaceBySlug = prepared(1, (db, slug: string) => db.selectFrom("workspaces").selectAll().where("slug", "=", slug));
const linkBySlug = prepared(2, (db, workspaceUuid: string, slug: string) =>
  db.selectFrom("links").selectAll().where("workspace_uuid", "=", workspaceUuid).where("slug", "=", slug),
);
const questionsOfLink = prepared(1, (db, linkUuid: string) =>
  db.selectFrom("questions").selectAll().where("link_uuid", "=", linkUuid).orderBy("order").orderBy("position"),
);
const responseBySession = prepared(1, (db, sessionId: string) => db.selectFrom("responses").selectAll().where("session_id", "=", sessionId));
const answerOf = prepared(2, (db, responseUuid: string, questionUuid: string) =>
  db.selectFrom("answers").selectAll().where("response_uuid", "=", responseUuid).where("question_uuid", "=", questionUuid),
);

/** The workspace with this slug and its link with this slug, with the link's questions in order; undefined when either is missing. */
export async function findLinkBySlugs(db: Q, workspaceSlug: string, linkSlug: string): Promise<{ ws: WorkspaceRow; link: LinkRow; questions: QuestionRow[] } | undefined> {
  const [ws] = await workspaceBySlug(db, workspaceSlug);
  const [link] = ws ? await linkBySlug(db, ws.uuid, linkSlug) : [];
  if (!ws || !link) return undefined;
  return { ws: ws as WorkspaceRow, link, questions: await questionsOfLink(db, link.uuid) };
}

/** The response of a respondent session. */
export async function findResponseBySession(db: Q, sessionId: string): Promise<ResponseRow | undefined> {
  return (await responseBySession(db, sessionId))[0];
}

/** The answer of a response to a question, if given. */
export async function findAnswerOf(db: Q, responseUuid: string, questionUuid: string): Promise<AnswerRow | undefined> {
  return (await answerOf(db, responseUuid, questionUuid))[0];
}
