/**
 * @module responses/export-columns
 * The CSV export's per-question columns (issue 26, docs/api.md "Export"). Every `field_key` has
 * its answer column; an *open* question (voice, text, voice_text_fallback: the types that are
 * transcribed, analysed and probed) adds seven more right after it:
 *
 * | column | content |
 * | --- | --- |
 * | `<key>.translation` | Whisper's English translation of a non-English voice answer (issue 24), empty otherwise |
 * | `<key>.theme` | the label of the answer's theme (DESIGN §12), empty when unassigned |
 * | `<key>.follow_ups` | each follow-up as `Q: <question>` and `A: <answer>` lines (the transcript for a spoken one), follow-ups separated by a blank line |
 * | `<key>.sentiment` | `positive`, `neutral` or `negative` |
 * | `<key>.actionable` | `true` or `false` |
 * | `<key>.topics` | the key topics joined by `; ` |
 * | `<key>.summary` | the one-line summary |
 *
 * Cells are empty when the answer has no follow-up or is not analysed (yet). `field_key`s are
 * snake_case, so the `.` never collides with a key of its own.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { ResponseRecord } from "./service.ts";
import { OPEN_TYPES } from "../../shared/question-types.ts";

type Answer = ResponseRecord["answers"][number];
type Cell = string | number;

const SUFFIXES = ["translation", "theme", "follow_ups", "sentiment", "actionable", "topics", "summary"] as const;

/**
 * The `field_key`s that belong to an open question of the link (or of any link of the workspace
 * when `linkUuid` is null).
 */
export async function openFieldKeys(db: Kysely<Database>, workspaceUuid: string, linkUuid: string | null): Promise<Set<string>> {
  let q = db
    .selectFrom("questions")
    .innerJoin("links", "links.uuid", "questions.link_uuid")
    .where("links.workspace_uuid", "=", workspaceUuid)
    .where("questions.type", "in", [...OPEN_TYPES])
    .select("questions.field_key");
  if (linkUuid) q = q.where("links.uuid", "=", linkUuid);
  return new Set((await q.execute()).map((r) => r.field_key));
}

/** The header cells of the answer columns: each key, followed by its seven extra columns when open. */
export function answerHeader(fieldKeys: string[], open: Set<string>): string[] {
  return fieldKeys.flatMap((k) => (open.has(k) ? [k, ...SUFFIXES.map((s) => `${k}.${s}`)] : [k]));
}

/** The seven extra cells of an open question's answer (empty strings when absent). */
function extraCells(a: Answer | undefined): Cell[] {
  if (!a) return SUFFIXES.map(() => "");
  const followUps = a.follow_ups.map((f) => `Q: ${f.question}\nA: ${f.transcription || f.answer || ""}`).join("\n\n");
  const i = a.ai_insights;
  return [
    a.translation ?? "",
    a.theme?.label ?? "",
    followUps,
    i?.sentiment ?? "",
    i ? String(i.actionable) : "",
    i?.key_topics.join("; ") ?? "",
    i?.summary ?? "",
  ];
}

/**
 * The answer cells of one response, in {@link answerHeader}'s order.
 * @param cell the content of an answer's own column
 */
export function answerCells(answers: Answer[], fieldKeys: string[], open: Set<string>, cell: (a: Answer) => Cell): Cell[] {
  const byKey = new Map(answers.map((a) => [a.field_key, a]));
  return fieldKeys.flatMap((k) => {
    const a = byKey.get(k);
    const own = a ? cell(a) : "";
    return open.has(k) ? [own, ...extraCells(a)] : [own];
  });
}
