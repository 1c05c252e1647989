/**
 * @module test/helpers/seed-responses
 * Writes many completed responses straight into a database, for tests that need volume (exports)
 * without going through the intake, whose anonymous limits would refuse hundreds of sessions.
 * Rows are shaped as the intake stores typed `text` answers.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../src/db/schema.ts";
import { blankAnswerRow } from "../../src/modules/responses/repository.ts";

/** The parts of a created link (as `POST links/` returns it) the seeding needs. */
export type SeedLink = { uuid: string; questions: { uuid: string; field_key: string; prompt: string }[] };

/**
 * Inserts `count` completed responses to `link`, one second apart from 2026-01-01, each with a
 * typed answer to every question of the link.
 * @param text the answer text for response `i` and question `q`
 * @returns the responses' uuids, oldest first
 */
export async function seedResponses(
  db: Kysely<Database>,
  workspaceUuid: string,
  link: SeedLink,
  count: number,
  text: (i: number, q: number) => string,
): Promise<string[]> {
  const base = Date.parse("2026-01-01T00:00:00Z");
  const uuids: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      const at = new Date(base + i * 1000).toISOString().replace("Z", "000Z");
      const uuid = crypto.randomUUID();
      uuids.push(uuid);
      await trx
        .insertInto("responses")
        .values({
          uuid,
          workspace_uuid: workspaceUuid,
          link_uuid: link.uuid,
          session_id: crypto.randomUUID(),
          status: "completed",
          respondent_email: null,
          date_created: at,
          date_updated: at,
          submitted_at: at,
          submitted_event_at: at,
        })
        .execute();
      for (const [position, q] of link.questions.entries()) {
        const value = text(i, position);
        await trx
          .insertInto("answers")
          .values({
            ...blankAnswerRow(
              {
                uuid: crypto.randomUUID(),
                response_uuid: uuid,
                question_uuid: q.uuid,
                field_key: q.field_key,
                response_type: "text",
                question_text: q.prompt,
                position,
              },
              at,
            ),
            value: JSON.stringify(value),
            text: value,
          })
          .execute();
      }
    }
  });
  return uuids;
}
