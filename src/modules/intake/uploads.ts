/**
 * @module intake/uploads
 * Recordings and files (docs/intake.md; DESIGN §7, §9): admitting an upload before its body is
 * read, storing a voice question's recording or a file_upload question's file in the blob store,
 * and replacing an earlier one so that nothing derived from the replaced bytes survives.
 */
import { AppError } from "../../errors.ts";
import type * as linksRepo from "../links/repository.ts";
import type * as responsesRepo from "../responses/repository.ts";
import { isVoiceType } from "../../shared/question-types.ts";
import { allowedTypesAccept, extensionMatches, sniffFile } from "../../http/media.ts";
import * as intakeRepo from "./repository.ts";
import type { AnswerState } from "./model.ts";
import { blobsOfAnswer, checkRecordingUpload, replacedBlobReset } from "./recordings.ts";
import { requireRecordingConsent } from "./consent.ts";
import { assertAccepting } from "./closing.ts";
import { upsertAnswer } from "./answers.ts";
import { answerState, findQuestion, findSession, type IntakeDeps, type IntakeLink, openSession } from "./intake-link.ts";

export type UploadKind = "audio" | "file" | "follow-up";

/**
 * Admits an upload before its body is read: the link is active, the session open, and the question
 * takes this kind of upload (a follow-up recording's question is checked when it is saved).
 * @returns the session's response row and the question's configuration
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (wrong kind of question)
 */
export async function admitUpload(deps: IntakeDeps, l: IntakeLink, sessionId: string, questionUuid: string, kind: UploadKind) {
  const q = findQuestion(l, questionUuid);
  if (kind === "audio" && !isVoiceType(q.type)) throw new AppError("VALIDATION_ERROR", "This question does not take a recording.");
  if (kind === "file" && q.type !== "file_upload") throw new AppError("VALIDATION_ERROR", "This question does not take a file.");
  assertAccepting(l.link);
  const response = await findSession(deps.db, l, sessionId);
  if (response.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  if (kind !== "file") requireRecordingConsent(l, response);
  return { response, configuration: JSON.parse(q.configuration) as Record<string, unknown> };
}

/**
 * Stores a recording for a voice question (`POST …/audio/`); transcription is queued on submit.
 * @param bytes the recording, already checked for size and format by the route
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (not a voice question),
 *   AUDIO_TOO_LONG, UNSUPPORTED_MEDIA_TYPE (see intake/recordings.ts)
 */
export async function saveAudio(
  deps: IntakeDeps,
  l: IntakeLink,
  sessionId: string,
  questionUuid: string,
  bytes: Uint8Array,
  mime: string,
  durationS: number | null,
) {
  const q = findQuestion(l, questionUuid);
  if (!isVoiceType(q.type)) throw new AppError("VALIDATION_ERROR", "This question does not take a recording.");
  await checkRecordingUpload(bytes, q);
  const maxS = Number(JSON.parse(q.configuration).max_duration ?? 120);
  const duration = durationS === null ? null : Math.min(durationS, maxS + 1);
  const key = await deps.blobs.put("audio", bytes);
  return replaceAnswerBlob(deps, l, sessionId, q, key, { audio_blob: key, audio_mime: mime, duration, transcription_status: "pending" });
}

/**
 * Writes a new recording or file (`key`, already stored) into the answer of (session, `q`) with
 * `patch` over {@link replacedBlobReset}: nothing derived from the replaced bytes survives (issue 22
 * item 3). The replaced answer's blobs (recording, file, follow-up recordings) are deleted after
 * the commit; on failure the new blob is deleted instead.
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED
 */
async function replaceAnswerBlob(
  deps: IntakeDeps,
  l: IntakeLink,
  sessionId: string,
  q: linksRepo.QuestionRow,
  key: string,
  patch: Partial<responsesRepo.AnswerRow>,
): Promise<AnswerState> {
  let replaced: string[] = [];
  let state: AnswerState;
  try {
    state = await deps.db.transaction().execute(async (trx) => {
      const r = await openSession(trx, l, sessionId);
      const previous = await intakeRepo.findAnswerOf(trx, r.uuid, q.uuid);
      replaced = blobsOfAnswer(previous);
      // A first answer starts from the clean defaults of upsertAnswer's insert.
      const row = await upsertAnswer(trx, r, q, previous ? { ...replacedBlobReset(), ...patch } : patch);
      return answerState(row);
    });
  } catch (err) {
    await deps.blobs.delete(key);
    throw err;
  }
  for (const old of replaced) await deps.blobs.delete(old);
  return state;
}

/**
 * Stores an uploaded file for a file_upload question (`POST …/file/`).
 * @param fileName the file's safe name (http/body.ts `filePartOf`: no directories, not empty)
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE
 */
export async function saveFile(deps: IntakeDeps, l: IntakeLink, sessionId: string, questionUuid: string, file: File, fileName: string) {
  const q = findQuestion(l, questionUuid);
  if (q.type !== "file_upload") throw new AppError("VALIDATION_ERROR", "This question does not take a file.");
  const config = JSON.parse(q.configuration) as { allowed_types?: string[]; max_size_mb?: number };
  if (file.size > (config.max_size_mb ?? 10) * 1024 * 1024) throw new AppError("PAYLOAD_TOO_LARGE", `Files may be at most ${config.max_size_mb ?? 10} MiB.`);
  if (file.size === 0) throw new AppError("VALIDATION_ERROR", "The file is empty.", { errors: [{ pointer: "/file", message: "The file is empty." }] });
  const bytes = new Uint8Array(await file.arrayBuffer());
  // The type comes from the bytes, never from the name or the part's Content-Type.
  const sniffed = await sniffFile(bytes);
  const nameExt = fileName.includes(".") ? fileName.split(".").pop()!.toLowerCase() : "";
  if (!(await extensionMatches(nameExt, sniffed))) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The file's content is not what its name says (.${nameExt}).`);
  const type = sniffed.mime;
  const allowed = config.allowed_types ?? [];
  if (!allowedTypesAccept(allowed, nameExt, sniffed)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `Accepted file types: ${allowed.join(", ")}.`);
  const key = await deps.blobs.put("files", bytes);
  const meta = { name: fileName.slice(0, 255), size: file.size, content_type: type };
  return replaceAnswerBlob(deps, l, sessionId, q, key, { file_blob: key, file_meta: JSON.stringify(meta), value: JSON.stringify(meta.name), text: meta.name });
}
