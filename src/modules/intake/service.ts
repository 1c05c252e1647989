/**
 * @module intake/service
 * The respondent's side (docs/intake.md; DESIGN §7, §9), as the routes call it: the link and the
 * session (intake-link.ts, sessions.ts), answers saved as they are given (answers.ts), recordings
 * and files (uploads.ts), and submission, which queues the transcription jobs and webhook events
 * in the transaction that completes the response (submit.ts).
 */
export { findIntakeLink, type IntakeDeps, intakeDepsOf, type IntakeLink, toPublicLink } from "./intake-link.ts";
export { getSession, giveConsent, invitationRefusalOf, startSession } from "./sessions.ts";
export { saveAnswer } from "./answers.ts";
export { admitUpload, saveAudio, saveFile, type UploadKind } from "./uploads.ts";
export { submitSession } from "./submit.ts";
