/**
 * @module intake/live
 * Live partial transcripts over a WebSocket (docs/intake.md, "Live transcription"; DESIGN §9):
 * `GET /api/v1/intake/{workspace_slug}/{link_slug}/sessions/{session_id}/live/` upgrades when the
 * link is active, its `settings.live_transcription` is true and the session is open; otherwise it
 * answers problem+json (404 NOT_FOUND, 409 LINK_PAUSED or ALREADY_SUBMITTED) without upgrading.
 * The page sends MediaRecorder chunks as binary frames and `{"type":"end"}` when it stops; the
 * server sends `ready`, then `partial`s (at most every 1.5 s), then one `final` and closes.
 * Live transcripts are only shown to the respondent; the uploaded recording is what is stored.
 * They are not masked under `settings.redact_pii` (never stored or logged; docs/privacy.md).
 */
import { intakeOps } from "./operations.ts";
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { AppError, notFound } from "../../errors.ts";
import { codeOf, createLiveTranscriber, LIVE_INTERVAL_MS, LIVE_MAX_BYTES, respondentMessage, type LiveTranscriber } from "../../ai/live-transcriber.ts";
import { MAX_RECORDING_S } from "../../ai/audio-common.ts";
import * as service from "./service.ts";
import { liveSocketGuard } from "./limits.ts";
import { questionRecordingLimitS } from "../links/recording-limit.ts";
import { isVoiceType } from "../../shared/question-types.ts";
import { assertAccepting } from "./closing.ts";

/** What live transcription needs from the inference worker. */
export type LiveInference = {
  /**
   * `maxDurationS`: the longest recording accepted, seconds (the question's max_duration + 2);
   * `language`: the link's `settings.language` (BCP 47) or null (issue 17).
   */
  transcribe(audio: Uint8Array, opts: { priority: "live"; maxDurationS: number; language: string | null }): Promise<{ text: string; durationS: number }>;
};

export type LiveDeps = AppDeps & {
  inference: LiveInference;
  /** Minimum time between partials, ms (tests shorten it). */
  liveIntervalMs?: number;
};

/** WebSocket close codes (RFC 6455 §7.4.1). */
const CLOSE_NORMAL = 1000;
const CLOSE_SERVER_ERROR = 1011;
const CLOSE_TOO_BIG = 1009;

/**
 * Checks that live transcription may start; runs before the upgrade, so failures are HTTP errors.
 * @returns the longest recording accepted, seconds: the question's `max_duration` + 2, or without
 *   `question_uuid` the largest of the link's voice questions (DESIGN §9)
 * @throws AppError NOT_FOUND (link, session or question; or live transcription off), LINK_PAUSED, ALREADY_SUBMITTED
 */
async function admit(deps: LiveDeps, params: Record<string, string>, questionUuid: string | undefined): Promise<Admitted> {
  const intake: service.IntakeDeps = service.intakeDepsOf(deps);
  const link = await service.findIntakeLink(deps.db, params.workspace_slug!, params.link_slug!);
  const pub = service.toPublicLink(link);
  if (!pub.settings.live_transcription) throw new AppError("NOT_FOUND", "Live transcription is not enabled for this link.");
  assertAccepting(link.link);
  const session = await service.getSession(intake, link, params.session_id!);
  if (session.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  if (pub.settings.consent && !session.consent) throw new AppError("CONSENT_REQUIRED", "This link asks for the respondent's consent before recording.");
  if (questionUuid !== undefined && !pub.questions.some((q) => q.uuid === questionUuid && isVoiceType(q.response_type))) {
    throw notFound("Question");
  }
  const voice = link.questions.filter((q) => isVoiceType(q.type) && (questionUuid === undefined || q.uuid === questionUuid));
  const maxDurationS = voice.length ? Math.max(...voice.map(questionRecordingLimitS)) : MAX_RECORDING_S;
  return { maxDurationS, language: pub.settings.language ?? null };
}

/** What an admitted socket transcribes with: the recording bound and the link's language. */
type Admitted = { maxDurationS: number; language: string | null };

const asBytes = (message: unknown): Uint8Array | null => {
  if (message instanceof Uint8Array) return message; // Buffer too
  if (message instanceof ArrayBuffer) return new Uint8Array(message);
  return null;
};

/**
 * The live transcription WebSocket, as an Elysia plugin.
 * @param deps the app's dependencies plus the inference client (priority "live" requests)
 */
export function liveRoutes(deps: LiveDeps) {
  const sockets = new WeakMap<object, LiveTranscriber>();
  const guard = liveSocketGuard(deps); // live sockets per session and per address (intake/limits.ts)
  // What `admit` found, per upgrade request, for `open` (Elysia does not pass it along).
  const limits = new WeakMap<Request, Admitted>();
  const intervalMs = deps.liveIntervalMs ?? LIVE_INTERVAL_MS;
  return (
    new Elysia({ name: "intake-live" })
      // A plain GET (no Upgrade header) is told what this URL is, after the same checks.
      .get(intakeOps.live.path, async ({ params, query }) => {
        await admit(deps, params, query.question_uuid);
        throw new AppError("VALIDATION_ERROR", "Open this URL as a WebSocket (Upgrade: websocket).");
      })
      .ws(intakeOps.live.path, {
        async beforeHandle({ params, query, request, server }) {
          guard.check(params.session_id, request, server);
          limits.set(request, await admit(deps, params, query.question_uuid));
        },
        open(ws) {
          if (!guard.open(ws)) return;
          const { maxDurationS, language } = limits.get(ws.data.request) ?? { maxDurationS: MAX_RECORDING_S, language: null };
          const transcriber = createLiveTranscriber({
            transcribe: (audio) => deps.inference.transcribe(audio, { priority: "live", maxDurationS, language }),
            send: (message) => ws.send(message),
            onError: (err) => deps.log.warn("live transcription failed", { error: err instanceof Error ? err.message : String(err), code: codeOf(err) }),
            intervalMs,
            maxBytes: LIVE_MAX_BYTES,
          });
          sockets.set(ws.raw, transcriber);
          ws.send({ type: "ready", interval_ms: intervalMs, max_bytes: LIVE_MAX_BYTES });
        },
        async message(ws, message) {
          const transcriber = sockets.get(ws.raw);
          if (transcriber === undefined) return;
          const chunk = asBytes(message);
          if (chunk !== null) {
            if (!transcriber.push(chunk)) {
              ws.send({ type: "error", code: "PAYLOAD_TOO_LARGE", message: `Live audio may be at most ${LIVE_MAX_BYTES} bytes.` });
              transcriber.close();
              ws.close(CLOSE_TOO_BIG, "recording too large");
            }
            return;
          }
          if ((message as { type?: unknown })?.type !== "end") {
            ws.send({ type: "error", code: "VALIDATION_ERROR", message: 'Send audio as binary frames and {"type":"end"} when done.' });
            return;
          }
          try {
            ws.send(await transcriber.finish());
            ws.close(CLOSE_NORMAL, "done");
          } catch (err) {
            const code = codeOf(err);
            deps.log.warn("live transcription failed", { error: (err as Error).message, code });
            ws.send({ type: "error", code, message: respondentMessage(code) });
            ws.close(CLOSE_SERVER_ERROR, "transcription failed");
          }
        },
        close(ws) {
          guard.close(ws);
          sockets.get(ws.raw)?.close();
          sockets.delete(ws.raw);
        },
      })
  );
}
