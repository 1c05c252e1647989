/**
 * @module intake/operations
 * OpenAPI catalogue entries of the public intake API (docs/intake.md).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { operation, type Operation } from "../../http/operation.ts";
import { publicLinkSchema } from "../links/question-doc.ts";
import {
  consentGivenSchema,
  answerStateSchema as answerState,
  followUpSchema as followUp,
  probeResultSchema as probeResult,
  sessionSchema as session,
} from "./model.ts";
import { MAX_HIDDEN_MEMBERS, MAX_HIDDEN_VALUE_CHARS } from "../links/hidden-fields.ts";
const BASE = "/api/v1/intake/:workspace_slug/:link_slug";
const tag = "intake";

/** The public intake endpoints, one declaration each: route and document entry (no key). */
export const intakeOps = {
  link: operation({
    method: "get",
    path: `${BASE}/`,
    summary: "A link's public definition",
    tag,
    scope: "public",
    success: { status: 200, schema: lazySchema(() => z.object({ link: publicLinkSchema })), description: "Public link" },
    errors: ["NOT_FOUND"],
  }),
  start: operation({
    method: "post",
    path: `${BASE}/sessions/`,
    body: lazySchema(() =>
      z.object({
        hidden: z
          .record(z.string(), z.string().max(MAX_HIDDEN_VALUE_CHARS))
          .optional()
          .describe(
            `Values of the link's settings.hidden_fields by name (issue 25); undeclared names are ignored, at most ${MAX_HIDDEN_MEMBERS} members, each value at most ${MAX_HIDDEN_VALUE_CHARS} characters without control characters`,
          ),
        invitation: z.string().max(80).optional().describe("The personal URL's `inv` token; required when the link's access is invitation"),
        consent: z
          .object({ language: z.string().nullable().optional() })
          .optional()
          .describe('Agrees to `settings.consent` (required when its `required_before` is "start"); `language`: whose translation of the text the page showed'),
      }),
    ),
    bodyOptional: true,
    summary: 'Start a respondent session (body {"hidden"?, "invitation"?, "consent"?}; DESIGN §13)',
    tag,
    scope: "public",
    success: { status: 201, schema: session, description: "Session" },
    alsoSuccess: { status: 200, description: "The session the invitation already started, resumed (nothing created)" },
    errors: [
      "NOT_FOUND",
      "VALIDATION_ERROR",
      "LINK_PAUSED",
      "LINK_CLOSED",
      "CONSENT_REQUIRED",
      "RATE_LIMITED",
      "PAYLOAD_TOO_LARGE",
      "INVITATION_REQUIRED",
      "INVITATION_USED",
      "INVITATION_EXPIRED",
      "INVITATION_REVOKED",
    ],
  }),
  consent: operation({
    method: "post",
    path: `${BASE}/sessions/:session_id/consent/`,
    summary: "Agree to the link's consent text (settings.consent) before recording",
    tag,
    scope: "public",
    body: lazySchema(() =>
      z.object({
        language: z.string().nullable().optional().describe("The language whose translation of the text the page showed; omitted or null: the source text"),
      }),
    ),
    bodyOptional: true,
    success: { status: 200, schema: consentGivenSchema, description: "The consent the response now records" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "INVALID_JSON", "LINK_PAUSED", "ALREADY_SUBMITTED"],
  }),
  session: operation({
    method: "get",
    path: `${BASE}/sessions/:session_id/`,
    summary: "Resume a session",
    tag,
    scope: "public",
    success: { status: 200, schema: session, description: "Session" },
    errors: ["NOT_FOUND", "KIOSK_NO_RESUME"],
  }),
  kioskExit: operation({
    method: "post",
    path: `${BASE}/kiosk/exit/`,
    summary: "Check the kiosk exit PIN (settings.kiosk; issue 29) before the page leaves kiosk mode",
    tag,
    scope: "public",
    body: lazySchema(() => z.object({ pin: z.string().describe("The PIN typed on the device (4 to 12 digits)") })),
    success: { status: 200, schema: lazySchema(() => z.object({ exited: z.literal(true) })), description: "The PIN is right" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "INVALID_JSON", "UNSUPPORTED_MEDIA_TYPE", "KIOSK_PIN_INVALID", "RATE_LIMITED"],
  }),
  answer: operation({
    method: "put",
    path: `${BASE}/sessions/:session_id/answers/:question_uuid/`,
    summary: "Save a typed answer",
    tag,
    scope: "public",
    body: lazySchema(() => z.object({ value: z.unknown() })),
    success: { status: 200, schema: answerState, description: "Answer state" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "LINK_PAUSED", "ALREADY_SUBMITTED"],
  }),
  audio: operation({
    method: "post",
    path: `${BASE}/sessions/:session_id/answers/:question_uuid/audio/`,
    summary: "Upload a recording (WebM/Opus, Ogg/Opus or WAV)",
    tag,
    scope: "public",
    rawBody: ["audio/webm", "audio/ogg", "audio/wav"],
    success: { status: 200, schema: answerState, description: "Answer state" },
    errors: [
      "NOT_FOUND",
      "VALIDATION_ERROR",
      "AUDIO_TOO_LONG",
      "PAYLOAD_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
      "RATE_LIMITED",
      "LINK_PAUSED",
      "ALREADY_SUBMITTED",
    ],
  }),
  file: operation({
    method: "post",
    path: `${BASE}/sessions/:session_id/answers/:question_uuid/file/`,
    summary: "Upload a file (multipart/form-data, part `file`)",
    tag,
    scope: "public",
    rawBody: ["multipart/form-data"],
    success: { status: 200, schema: answerState, description: "Answer state" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "RATE_LIMITED", "LINK_PAUSED", "ALREADY_SUBMITTED"],
  }),
  probe: operation({
    method: "post",
    path: `${BASE}/sessions/:session_id/answers/:question_uuid/probe/`,
    emptyBody: true,
    summary: "Ask for the next follow-up question of an answer (dynamic probing)",
    tag,
    scope: "public",
    success: { status: 200, schema: probeResult, description: "Clarity and the follow-up to ask, or null" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "AUDIO_TOO_LONG", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "LINK_PAUSED", "ALREADY_SUBMITTED"],
  }),
  followUp: operation({
    method: "put",
    path: `${BASE}/sessions/:session_id/answers/:question_uuid/follow-ups/:index/`,
    summary: "Answer a follow-up question by text",
    tag,
    scope: "public",
    body: lazySchema(() => z.object({ value: z.string() })),
    success: { status: 200, schema: lazySchema(() => z.object({ follow_ups: z.array(followUp) })), description: "Follow-ups" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "LINK_PAUSED", "ALREADY_SUBMITTED"],
  }),
  followUpAudio: operation({
    method: "post",
    path: `${BASE}/sessions/:session_id/answers/:question_uuid/follow-ups/:index/audio/`,
    summary: "Answer a follow-up question by voice (transcribed at once)",
    tag,
    scope: "public",
    rawBody: ["audio/webm", "audio/ogg", "audio/wav"],
    success: { status: 200, schema: lazySchema(() => z.object({ follow_ups: z.array(followUp) })), description: "Follow-ups" },
    errors: [
      "NOT_FOUND",
      "VALIDATION_ERROR",
      "AUDIO_TOO_LONG",
      "PAYLOAD_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
      "RATE_LIMITED",
      "LINK_PAUSED",
      "ALREADY_SUBMITTED",
    ],
  }),
  live: operation({
    method: "get",
    path: `${BASE}/sessions/:session_id/live/`,
    summary:
      "Live partial transcripts: a WebSocket (Upgrade: websocket; query question_uuid). Binary audio frames in; ready, partial, final messages out (docs/intake.md)",
    tag,
    scope: "public",
    query: lazySchema(() => z.object({ question_uuid: z.string().optional() })),
    success: { status: 101, description: "Switching protocols to WebSocket" },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "RATE_LIMITED", "LINK_PAUSED", "ALREADY_SUBMITTED"],
  }),
  submit: operation({
    method: "post",
    path: `${BASE}/sessions/:session_id/submit/`,
    emptyBody: true,
    summary: "Submit the response",
    tag,
    scope: "public",
    success: {
      status: 200,
      schema: lazySchema(() => z.object({ status: z.literal("completed"), thank_you_message: z.string(), redirect_url: z.string().nullable() })),
      description: "Submitted",
    },
    errors: ["NOT_FOUND", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "LINK_PAUSED", "ALREADY_SUBMITTED", "INVITATION_REVOKED"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const intakeOperations: Operation[] = Object.values(intakeOps);
