/**
 * @module responses/export
 * `GET links/{uuid}/responses/export/?format=csv|jsonl` (DESIGN §7): streams the responses of a
 * link that the list's filters keep (default: every status), one CSV column per `field_key`.
 * `GET responses/export/` does the same for the whole workspace (the workspace-wide inbox): its
 * CSV adds a `link_uuid` column and has one column per `field_key` of any of the workspace's
 * links (answers of different links with the same `field_key` share the column).
 *
 * The stream is pull-based: the server's socket asks for the next chunk only when it has room
 * (Bun applies backpressure to a pulled `ReadableStream`), and each pull re-checks the key and
 * produces one chunk of about {@link EXPORT_CHUNK_BYTES} characters (plus one record). So a slow reader
 * holds the export back, memory stays flat (keyset pages of {@link PAGE_ROWS} rows), and after a
 * revocation nothing more is produced (DESIGN §5): what the reader still receives is what was
 * already handed to the operating system's socket buffers (a few MiB on loopback).
 *
 * CSV cells that a spreadsheet would run as a formula (starting with `= + - @`, tab or carriage
 * return, or their full-width forms) are prefixed with `'` by csv-stringify's `escape_formulas`;
 * numbers are written as numbers, so `-3` stays `-3`.
 *
 * Each open question (voice, voice_text_fallback, text) also gets a `<field_key>.theme` column
 * right after its own: the answer's theme label, empty when unassigned (DESIGN §12). JSONL
 * records carry `theme` on each answer.
 */
import { stringify } from "csv-stringify/sync";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import * as linksRepo from "../links/repository.ts";
import { toResponseRecords, type ResponseDeps, type ResponseRecord } from "./service.ts";
import { applySelection, type ResponseSelection } from "./repository.ts";
import { openFieldKeysOfWorkspace, OPEN_TYPES } from "../themes/repository.ts";

/** Suffix of the theme column of an open question's `field_key`. */
export const THEME_COLUMN_SUFFIX = ".theme";

/** The CSV's answer columns: each field key, and after an open question's its theme column. */
function answerColumns(fieldKeys: string[], open: Set<string>): { key: string; theme: boolean }[] {
  return fieldKeys.flatMap((key) =>
    open.has(key)
      ? [
          { key, theme: false },
          { key, theme: true },
        ]
      : [{ key, theme: false }],
  );
}

/** Rows read from the database per keyset page. */
const PAGE_ROWS = 50;
/** A pull stops adding records once its chunk reaches this many characters (64 Ki; ≤ 192 KiB of UTF-8). */
export const EXPORT_CHUNK_BYTES = 64 * 1024;
const FIXED_COLUMNS = ["response_uuid", "session_id", "status", "respondent_email", "date_created", "submitted_at"];
const CSV_OPTIONS = { escape_formulas: true } as const;

type Cell = string | number;

/** The content of an answer's CSV cell: transcript or typed text, else the value (numbers stay numbers). */
function cell(a: ResponseRecord["answers"][number]): Cell {
  if (a.transcription) return a.transcription;
  if (typeof a.value === "number") return a.value;
  if (a.text !== null) return a.text;
  if (a.value === null || a.value === undefined) return "";
  return typeof a.value === "string" ? a.value : JSON.stringify(a.value);
}

/** One CSV line (with its line break) or one JSONL line of a response record. */
function encodeRecord(r: ResponseRecord, format: "csv" | "jsonl", columns: { key: string; theme: boolean }[], withLink: boolean): string {
  if (format === "jsonl") return JSON.stringify(r) + "\n";
  const byKey = new Map(r.answers.map((a) => [a.field_key, cell(a)]));
  const themeOf = new Map(r.answers.map((a) => [a.field_key, a.theme?.label ?? ""]));
  const fixed: Cell[] = [r.uuid, r.session_id, r.status, r.respondent_email ?? "", r.date_created, r.submitted_at ?? ""];
  const row: Cell[] = [...fixed, ...(withLink ? [r.link_uuid] : []), ...columns.map((c) => (c.theme ? themeOf.get(c.key) : byKey.get(c.key)) ?? "")];
  return stringify([row], CSV_OPTIONS);
}

/** What an export covers: one link, or (link null) every response of the workspace. */
export type ExportTarget = { workspaceUuid: string; link: linksRepo.LinkRow | null };

/**
 * A byte stream of the link's responses that `selection` keeps (the list's filters; the console
 * exports what it shows), oldest first: CSV with a header line, or JSONL of full response records.
 * @param stillAllowed called before each chunk; when it throws, the stream is errored (the
 *   client sees the body cut off, never a complete-looking export) and `onStop` gets the error
 * @param onStop told why the stream was errored (for the log), instead of the error being printed
 */
export function exportResponses(
  deps: ResponseDeps,
  target: ExportTarget,
  selection: ResponseSelection,
  format: "csv" | "jsonl",
  stillAllowed: () => Promise<void>,
  onStop: (err: unknown) => void = () => {},
): ReadableStream<Uint8Array> {
  const db: Kysely<Database> = deps.db;
  const encoder = new TextEncoder();
  let after: { date_created: string; uuid: string } | null = null;
  let columns: { key: string; theme: boolean }[] | null = null;
  let pending: ResponseRecord[] = [];
  let exhausted = false;

  /** Reads the next keyset page into `pending`; false when there are no more rows. */
  const nextPage = async (): Promise<boolean> => {
    let q = applySelection(db, db.selectFrom("responses").selectAll(), {
      ...selection,
      workspaceUuid: target.workspaceUuid,
      linkUuid: target.link?.uuid ?? selection.linkUuid,
    });
    if (after) {
      const a = after;
      q = q.where((eb) => eb.or([eb("date_created", ">", a.date_created), eb.and([eb("date_created", "=", a.date_created), eb("uuid", ">", a.uuid)])]));
    }
    const rows = await q.orderBy("date_created").orderBy("uuid").limit(PAGE_ROWS).execute();
    if (!rows.length) return false;
    after = { date_created: rows.at(-1)!.date_created, uuid: rows.at(-1)!.uuid };
    pending = await toResponseRecords(db, deps, rows);
    return true;
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await stillAllowed();
          let out = "";
          if (columns === null) {
            const questions = target.link ? await linksRepo.questionsOf(db, [target.link.uuid]) : null;
            const fieldKeys = questions ? questions.map((q) => q.field_key) : await linksRepo.fieldKeysOfWorkspace(db, target.workspaceUuid);
            const open = questions
              ? new Set(questions.filter((q) => OPEN_TYPES.includes(q.type)).map((q) => q.field_key))
              : await openFieldKeysOfWorkspace(db, target.workspaceUuid);
            columns = answerColumns(fieldKeys, open);
            const header = columns.map((c) => (c.theme ? c.key + THEME_COLUMN_SUFFIX : c.key));
            if (format === "csv") out += stringify([[...FIXED_COLUMNS, ...(target.link ? [] : ["link_uuid"]), ...header]], CSV_OPTIONS);
          }
          while (out.length < EXPORT_CHUNK_BYTES) {
            if (!pending.length && (exhausted || !(await nextPage()))) {
              exhausted = true;
              break;
            }
            out += encodeRecord(pending.shift()!, format, columns, target.link === null);
          }
          if (out) controller.enqueue(encoder.encode(out));
          if (exhausted && !pending.length) controller.close();
        } catch (err) {
          onStop(err);
          // Erroring without a reason aborts the response (no final chunk) without Bun printing a
          // stack trace for an expected stop; onStop has logged why.
          controller.error(undefined);
        }
      },
    },
    // Nothing is prepared ahead of the reader: each chunk is produced when the socket asks for it.
    { highWaterMark: 0 },
  );
}
