/**
 * @module responses/downloads
 * What leaves the server as bytes rather than JSON (DESIGN §7): the CSV/JSONL exports (per link
 * and workspace-wide), an answer's uploaded file, and recordings (an answer's, or a follow-up's),
 * to a key holder or to anyone holding a signed URL. The routes turn these into HTTP responses;
 * blobs are streamed from the store (a file, or PostgreSQL chunks), never read whole.
 */
import { notFound } from "../../errors.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { sniffAudioMime } from "../../http/media.ts";
import type { Logger } from "../../logger.ts";
import { isUuid } from "../../shared/uuid.ts";
import { findLink } from "../links/repository.ts";
import { exportResponses } from "./export.ts";
import type { ResponseFilterQuery } from "./model.ts";
import * as repo from "./repository.ts";
import { selectionOf, type ResponseDeps } from "./service.ts";

/** An export as a download: a byte stream, its format and the file name to save it under. */
export type ResponseExport = { stream: ReadableStream<Uint8Array>; format: "csv" | "jsonl"; fileName: string };

/** Bytes to send: the body (streamed), its media type, and for files the stored name. */
export type Download = { body: Blob | ReadableStream<Uint8Array>; contentType: string; fileName: string | null };

/** Which recording of an answer: its own, or the follow-up at `index`. */
export type RecordingRef = { kind: "answer" } | { kind: "follow_up"; index: number };

type ExportDeps = ResponseDeps & { log: Logger };

/**
 * `GET links/{uuid}/responses/export/`: the link's responses that pass `filters`, as CSV or
 * JSONL. The caller's key is re-checked before every chunk; a revoked key cuts the stream off.
 * @throws AppError NOT_FOUND when the link is not the workspace's
 */
export async function exportLinkResponses(
  d: ExportDeps,
  auth: AuthContext,
  linkUuid: string,
  format: "csv" | "jsonl",
  filters: ResponseFilterQuery,
): Promise<ResponseExport> {
  const link = isUuid(linkUuid) ? await findLink(d.db, auth.workspaceUuid, linkUuid) : undefined;
  if (!link) throw notFound("Link");
  const selection = await selectionOf(d.db, auth.workspaceUuid, link.uuid, filters);
  const stopped = (err: unknown) =>
    d.log.warn("export stopped", { link_uuid: link.uuid, token_uuid: auth.tokenUuid, reason: err instanceof Error ? err.message : String(err) });
  const stream = exportResponses(d, { workspaceUuid: auth.workspaceUuid, link }, selection, format, () => d.auth.assertActive(d.db, auth), stopped);
  return { stream, format, fileName: `${link.slug}-responses.${format}` };
}

/**
 * `GET responses/export/`: every link's responses (or only `linkUuid`'s) that pass `filters`,
 * with a `link_uuid` column; re-checked before every chunk as above.
 * @throws AppError NOT_FOUND when `linkUuid` is given and is not the workspace's
 */
export async function exportWorkspaceResponses(
  d: ExportDeps,
  auth: AuthContext,
  linkUuid: string | undefined,
  format: "csv" | "jsonl",
  filters: ResponseFilterQuery,
): Promise<ResponseExport> {
  const selection = await selectionOf(d.db, auth.workspaceUuid, linkUuid, filters);
  const stopped = (err: unknown) =>
    d.log.warn("export stopped", { workspace_uuid: auth.workspaceUuid, token_uuid: auth.tokenUuid, reason: err instanceof Error ? err.message : String(err) });
  const stream = exportResponses(
    d,
    { workspaceUuid: auth.workspaceUuid, link: null },
    { ...selection, linkUuid },
    format,
    () => d.auth.assertActive(d.db, auth),
    stopped,
  );
  return { stream, format, fileName: `responses.${format}` };
}

/** The blob under `key` as a body: the file itself on disk (sendfile), else the store's stream. */
async function blobBody(d: ResponseDeps, key: string): Promise<Blob | ReadableStream<Uint8Array> | null> {
  const local = d.blobs.localPath(key);
  return local ? Bun.file(local) : d.blobs.stream(key);
}

/**
 * `GET responses/{uuid}/answers/{uuid}/file/`: an answer's uploaded file, as stored, with its
 * original name and declared type.
 * @throws AppError NOT_FOUND ("File") when the response, the answer or the file is not there
 */
export async function answerFile(d: ResponseDeps, auth: AuthContext, responseUuid: string, answerUuid: string): Promise<Download> {
  const r = await repo.findResponse(d.db, auth.workspaceUuid, responseUuid);
  const a = r && isUuid(answerUuid) ? await repo.findAnswer(d.db, answerUuid) : undefined;
  if (!r || !a || a.response_uuid !== r.uuid || !a.file_blob || !a.file_meta) throw notFound("File");
  const meta = JSON.parse(a.file_meta) as { name: string; content_type: string };
  const body = (await d.blobs.size(a.file_blob)) === null ? null : await blobBody(d, a.file_blob);
  if (!body) throw notFound("File");
  return { body, contentType: meta.content_type, fileName: meta.name };
}

/**
 * The workspace a signed recording URL's response belongs to (the signature proves the path,
 * not the workspace); null when there is no such response.
 */
export async function workspaceOfResponse(d: ResponseDeps, responseUuid: string): Promise<string | null> {
  const r = isUuid(responseUuid) ? await repo.findResponseByUuid(d.db, responseUuid) : undefined;
  return r?.workspace_uuid ?? null;
}

/**
 * A recording of an answer of `workspaceUuid`'s response, streamed; its type is the stored one,
 * else recognised from its first bytes.
 * @param workspaceUuid null answers NOT_FOUND (a signed URL whose response is gone)
 * @throws AppError NOT_FOUND ("Recording") when any part is missing
 */
export async function recording(
  d: ResponseDeps,
  workspaceUuid: string | null,
  responseUuid: string,
  answerUuid: string,
  which: RecordingRef,
): Promise<Download> {
  const r = workspaceUuid && isUuid(responseUuid) ? await repo.findResponse(d.db, workspaceUuid, responseUuid) : undefined;
  const a = r && isUuid(answerUuid) ? await repo.findAnswer(d.db, answerUuid) : undefined;
  const blob = r && a && a.response_uuid === r.uuid ? recordingOf(a, which) : null;
  const head = blob ? await d.blobs.head(blob.key, 16) : null;
  const body = blob && head ? await blobBody(d, blob.key) : null;
  if (!blob || !head || !body) throw notFound("Recording");
  return { body, contentType: blob.mime ?? sniffAudioMime(head) ?? "application/octet-stream", fileName: null };
}

function recordingOf(a: repo.AnswerRow, which: RecordingRef): { key: string; mime: string | null } | null {
  if (which.kind === "answer") return a.audio_blob ? { key: a.audio_blob, mime: a.audio_mime } : null;
  const f = (JSON.parse(a.follow_ups) as { audio_blob?: string | null }[])[which.index];
  return f?.audio_blob ? { key: f.audio_blob, mime: null } : null;
}
