/**
 * @module responses/export
 * `GET links/{uuid}/responses/export/?format=csv|jsonl` (DESIGN §7): streams the responses of a
 * link that the list's filters keep (default: every status), one CSV column per `field_key`.
 * `GET responses/export/` does the same for the whole workspace (the workspace-wide inbox): its
 * CSV adds a `link_uuid` column and has one column per `field_key` of any of the workspace's
 * links (answers of different links with the same `field_key` share the column). An open question's
 * column is followed by its follow-up and insight columns (export-columns.ts).
 *
 * The stream produces the next chunk only when the socket has taken the last one (Bun's direct
 * stream, `flush(true)`), re-checking the key before each chunk and, while the reader is not
 * reading, every {@link STALLED_CHECK_MS} ms. Each chunk is about {@link EXPORT_CHUNK_BYTES}
 * characters (plus one record). So a slow reader holds the export back, memory stays flat (keyset
 * pages of {@link PAGE_ROWS} rows), and a revocation resets the connection (DESIGN §5; issue 22):
 * the reset also drops what the operating system still buffered (a few MiB on loopback), so a
 * slow reader gets at most what it reads before the next check, and sees a failed transfer.
 *
 * CSV cells that a spreadsheet would run as a formula (starting with `= + - @`, tab or carriage
 * return, or their full-width forms) are prefixed with `'` by csv-stringify's `escape_formulas`;
 * numbers are written as numbers, so `-3` stays `-3`.
 *
 * Hidden fields (issue 25): the CSV has a `hidden.<name>` column per hidden field the link declares
 * (workspace-wide: declared by any of its links, in the links' creation order), after the fixed
 * columns; JSONL records carry the `hidden` object.
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
import { answerCells, answerHeader, openFieldKeys } from "./export-columns.ts";
import { hiddenFieldsOf } from "../links/hidden-fields.ts";

/**
 * How often a stalled export (its reader not reading) re-checks the key, ms: a revoked key's
 * export is reset within this, not after the reader has drained the kernels' buffers (issue 22).
 * One indexed read per check, only while the socket is full.
 */
const STALLED_CHECK_MS = 25;
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
function encodeRecord(r: ResponseRecord, format: "csv" | "jsonl", columns: Columns, withLink: boolean): string {
  if (format === "jsonl") return JSON.stringify(r) + "\n";
  const fixed: Cell[] = [r.uuid, r.session_id, r.status, r.respondent_email ?? "", r.date_created, r.submitted_at ?? ""];
  const hidden = columns.hidden.map((name) => r.hidden[name] ?? "");
  const row: Cell[] = [...fixed, ...(withLink ? [r.link_uuid] : []), ...hidden, ...answerCells(r.answers, columns.fieldKeys, columns.open, cell)];
  return stringify([row], CSV_OPTIONS);
}

/** The CSV's variable columns: hidden fields, then answers (open questions' with their extra columns). */
type Columns = { hidden: string[]; fieldKeys: string[]; open: Set<string> };

/** The hidden fields declared by the target link, or by any link of the workspace (their creation order). */
async function hiddenColumns(db: Kysely<Database>, target: ExportTarget): Promise<string[]> {
  const links = target.link
    ? [target.link]
    : await db.selectFrom("links").select("settings").where("workspace_uuid", "=", target.workspaceUuid).orderBy("date_created").orderBy("uuid").execute();
  return [...new Set(links.flatMap((l) => hiddenFieldsOf(JSON.parse(l.settings))))];
}

/** What an export covers: one link, or (link null) every response of the workspace. */
export type ExportTarget = { workspaceUuid: string; link: linksRepo.LinkRow | null };

/**
 * A byte stream of the link's responses that `selection` keeps (the list's filters; the console
 * exports what it shows), oldest first: CSV with a header line, or JSONL of full response records.
 * @param stillAllowed called before each chunk, and every {@link STALLED_CHECK_MS} ms while the
 *   reader is not reading; when it throws, the connection is reset (the client sees a failed
 *   transfer, never a complete-looking export) and `onStop` gets the error
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
  // Read with the first chunk; open questions' field keys get follow-up and insight columns (export-columns.ts).
  let columns: Columns | null = null;
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

  /** The next chunk: the CSV header first, then records up to {@link EXPORT_CHUNK_BYTES} characters; "" at the end. */
  const nextChunk = async (): Promise<string> => {
    let out = "";
    if (columns === null) {
      const fieldKeys = target.link
        ? (await linksRepo.questionsOf(db, [target.link.uuid])).map((q) => q.field_key)
        : await linksRepo.fieldKeysOfWorkspace(db, target.workspaceUuid);
      const open = await openFieldKeys(db, target.workspaceUuid, target.link?.uuid ?? null);
      columns = { hidden: await hiddenColumns(db, target), fieldKeys, open };
      const hiddenHeader = columns.hidden.map((name) => `hidden.${name}`);
      if (format === "csv")
        out += stringify([[...FIXED_COLUMNS, ...(target.link ? [] : ["link_uuid"]), ...hiddenHeader, ...answerHeader(fieldKeys, open)]], CSV_OPTIONS);
    }
    while (out.length < EXPORT_CHUNK_BYTES) {
      if (!pending.length && (exhausted || !(await nextPage()))) {
        exhausted = true;
        break;
      }
      out += encodeRecord(pending.shift()!, format, columns, target.link === null);
    }
    return out;
  };

  // A "direct" stream (Bun): each chunk is written to the socket and the next one produced only
  // once the socket has taken it (`write` returns a promise while it is full). Throwing from
  // `pull` makes Bun reset the connection (TCP RST), which also drops what the server's kernel
  // still buffers unsent — MiBs on loopback that a graceful end would still deliver to a slow
  // reader after a revocation.
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller: ReadableStreamDirectController) {
      try {
        for (;;) {
          await stillAllowed();
          const out = await nextChunk();
          if (out) await drained(controller.write(encoder.encode(out)), stillAllowed);
          if (exhausted && !pending.length) break;
        }
      } catch (err) {
        onStop(err);
        // Without a reason: Bun resets the connection without printing a stack trace for an
        // expected stop (onStop has logged why). The client sees a reset, never a final chunk.
        throw undefined;
      }
      await controller.end();
    },
  };
  // The DOM typings' constructor hides Bun's overload for direct sources.
  return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
}

/**
 * Waits until a write has been taken (`written` is a promise while the socket is full), checking
 * `stillAllowed` every {@link STALLED_CHECK_MS} ms meanwhile: a reader that has stopped reading
 * holds the write back for as long as it likes, and a revocation must still end the stream.
 * @throws whatever `stillAllowed` throws
 */
async function drained(written: number | Promise<number>, stillAllowed: () => Promise<void>): Promise<void> {
  if (typeof written === "number") return; // taken at once
  let done = false;
  const settled = written.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  while (!done) {
    await Promise.race([settled, Bun.sleep(STALLED_CHECK_MS)]);
    if (!done) await stillAllowed();
  }
}
