/**
 * @module responses/export
 * `GET links/{uuid}/responses/export/?format=csv|jsonl` (DESIGN §7): streams every response of a
 * link in batches (keyset pagination, so memory stays flat), one CSV column per `field_key`.
 * The key is re-checked before each batch: a revoked key gets no more data (DESIGN §5).
 */
import { stringify } from "csv-stringify/sync";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import * as linksRepo from "../links/repository.ts";
import { toResponseRecords, type ResponseDeps, type ResponseRecord } from "./service.ts";

const BATCH = 200;
const FIXED_COLUMNS = ["response_uuid", "session_id", "status", "respondent_email", "date_created", "submitted_at"];

/** The text of an answer in a CSV cell: transcript or typed text, else the JSON value. */
function cell(a: ResponseRecord["answers"][number]): string {
  if (a.transcription) return a.transcription;
  if (a.text !== null) return a.text;
  if (a.value === null || a.value === undefined) return "";
  return typeof a.value === "string" ? a.value : JSON.stringify(a.value);
}

/**
 * A byte stream of the link's responses.
 * @param stillAllowed called before each batch; when it throws, the stream ends with that error
 */
export function exportResponses(deps: ResponseDeps, link: linksRepo.LinkRow, format: "csv" | "jsonl", stillAllowed: () => Promise<void>): ReadableStream<Uint8Array> {
  const db: Kysely<Database> = deps.db;
  const encoder = new TextEncoder();
  let after: { date_created: string; uuid: string } | null = null;
  let fieldKeys: string[] | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        await stillAllowed();
        if (fieldKeys === null) {
          const questions = await linksRepo.questionsOf(db, [link.uuid]);
          fieldKeys = questions.map((q) => q.field_key);
          if (format === "csv") controller.enqueue(encoder.encode(stringify([[...FIXED_COLUMNS, ...fieldKeys]])));
        }
        let q = db.selectFrom("responses").selectAll().where("link_uuid", "=", link.uuid).where("workspace_uuid", "=", link.workspace_uuid);
        if (after) {
          const a = after;
          q = q.where((eb) => eb.or([eb("date_created", ">", a.date_created), eb.and([eb("date_created", "=", a.date_created), eb("uuid", ">", a.uuid)])]));
        }
        const rows = await q.orderBy("date_created").orderBy("uuid").limit(BATCH).execute();
        if (!rows.length) {
          controller.close();
          return;
        }
        after = { date_created: rows.at(-1)!.date_created, uuid: rows.at(-1)!.uuid };
        const records = await toResponseRecords(db, deps, rows);
        const out =
          format === "jsonl"
            ? records.map((r) => JSON.stringify(r) + "\n").join("")
            : stringify(
                records.map((r) => {
                  const byKey = new Map(r.answers.map((a) => [a.field_key, cell(a)]));
                  return [r.uuid, r.session_id, r.status, r.respondent_email ?? "", r.date_created, r.submitted_at ?? "", ...fieldKeys!.map((k) => byKey.get(k) ?? "")];
                }),
              );
        controller.enqueue(encoder.encode(out));
      } catch (err) {
        controller.error(err);
      }
    },
    // Pull one batch at a time, only when the reader asks: nothing is prepared ahead of a check.
  }, { highWaterMark: 0 });
}
