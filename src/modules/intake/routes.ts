/**
 * @module intake/routes
 * The public intake surface (docs/intake.md): the page at `public_url`, its assets, and the
 * session API the page calls. No API key; the session id is the respondent's credential.
 */
import { Elysia } from "elysia";
import type { AppDeps, RouteCtx } from "../../http/context.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { AppError } from "../../errors.ts";
import { renderIntakePage, renderMessagePage } from "../../http/web-assets.ts";
import { listWorkspaces } from "../workspaces/repository.ts";
import * as service from "./service.ts";
import { sniffAudioMime } from "../../http/media.ts";
import { answerFollowUp, probeAnswer } from "./probing.ts";

/** Largest accepted recording: 10 minutes of 48 kHz 16-bit WAV fits. */
export const MAX_AUDIO_BYTES = 64 * 1024 * 1024;

/**
 * The bytes of a recording upload.
 * @throws AppError UNSUPPORTED_MEDIA_TYPE (not WebM/Ogg/WAV), PAYLOAD_TOO_LARGE, VALIDATION_ERROR (empty)
 */
function recordingOf(body: unknown): Uint8Array {
  if (!(body instanceof ArrayBuffer)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send WebM/Opus, Ogg/Opus or WAV audio as the raw body.");
  const bytes = new Uint8Array(body);
  if (bytes.length > MAX_AUDIO_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "Recordings may be at most 64 MiB.");
  if (bytes.length === 0) throw new AppError("VALIDATION_ERROR", "The recording is empty.");
  if (!sniffAudioMime(bytes)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send WebM/Opus, Ogg/Opus or WAV audio.");
  return bytes;
}

function followUpIndex(raw: string): number {
  if (!/^\d{1,2}$/.test(raw)) throw new AppError("NOT_FOUND", "Follow-up not found.");
  return Number(raw);
}

function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

/** The intake page, its assets and the public session API (docs/intake.md); no API key. */
export function intakeRoutes(deps: AppDeps) {
  const d: service.IntakeDeps = service.intakeDepsOf(deps);
  const probing = { db: deps.db, blobs: deps.blobs, inference: deps.inference };
  const link = (p: Record<string, string>) => service.findIntakeLink(deps.db, p.workspace_slug!, p.link_slug!);
  const base = "/api/v1/intake/:workspace_slug/:link_slug";

  async function page(wsSlug: string, linkSlug: string): Promise<Response> {
    let l: service.IntakeLink;
    try {
      l = await service.findIntakeLink(deps.db, wsSlug, linkSlug);
    } catch {
      return html(renderMessagePage("Link not found", "This feedback link does not exist or was removed."), 404);
    }
    if (l.link.status !== "active") return html(renderMessagePage(l.link.name, "This link is not accepting responses right now."));
    const pub = service.toPublicLink(l);
    return html(renderIntakePage({ title: l.link.name, apiBase: `/api/v1/intake/${wsSlug}/${linkSlug}/`, link: pub, description: pub.settings.description }));
  }

  const app = new Elysia({ name: "intake" });
  for (const [path, asset] of deps.webAssets) {
    app.get(path, () => new Response(asset.body as BodyInit, { headers: { "content-type": asset.contentType, "cache-control": "public, max-age=300" } }));
  }
  return app
    .get("/w/:workspace_slug/i/:link_slug", ({ params }) => page(params.workspace_slug, params.link_slug))
    .get("/i/:link_slug", async ({ params, request }) => {
      // A workspace's dedicated origin serves its links at the root (DESIGN §3).
      const host = request.headers.get("host")?.toLowerCase();
      const ws = (await listWorkspaces(deps.db)).find((w) => w.host && new URL(w.host).host.toLowerCase() === host);
      if (!ws) return html(renderMessagePage("Link not found", "This feedback link does not exist or was removed."), 404);
      return page(ws.slug, params.link_slug);
    })
    .get(`${base}/`, async ({ params }) => ({ link: service.toPublicLink(await link(params)) }))
    .post(`${base}/sessions/`, async ({ params, set }) => {
      const s = await service.startSession(d, await link(params));
      set.status = 201;
      return s;
    })
    .get(`${base}/sessions/:session_id/`, async ({ params }) => service.getSession(d, await link(params), params.session_id))
    .put(`${base}/sessions/:session_id/answers/:question_uuid/`, async (ctx) => {
      const { params, request, body } = ctx as unknown as RouteCtx;
      const raw = requireJsonBody(request, body) as { value?: unknown };
      if (typeof raw !== "object" || raw === null || !("value" in raw)) {
        throw new AppError("VALIDATION_ERROR", "Send {\"value\": …}.", { errors: [{ pointer: "/value", message: "Required." }] });
      }
      return service.saveAnswer(d, await link(params), params.session_id!, params.question_uuid!, raw.value);
    })
    .post(`${base}/sessions/:session_id/answers/:question_uuid/audio/`, async ({ params, body, query }) => {
      const bytes = recordingOf(body);
      const mime = sniffAudioMime(bytes)!;
      const duration = query.duration !== undefined && /^\d+(\.\d+)?$/.test(query.duration) ? Number(query.duration) : null;
      return service.saveAudio(d, await link(params), params.session_id, params.question_uuid, bytes, mime, duration);
    })
    .post(`${base}/sessions/:session_id/answers/:question_uuid/file/`, async ({ params, body }) => {
      if (!(body instanceof FormData)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the file as multipart/form-data with a part named file.");
      const file = body.get("file");
      if (!(file instanceof File)) throw new AppError("VALIDATION_ERROR", "The form has no part named file.", { errors: [{ pointer: "/file", message: "Required." }] });
      return service.saveFile(d, await link(params), params.session_id, params.question_uuid, file);
    })
    .post(`${base}/sessions/:session_id/answers/:question_uuid/probe/`, async ({ params }) =>
      probeAnswer(probing, await link(params), params.session_id, params.question_uuid),
    )
    .put(`${base}/sessions/:session_id/answers/:question_uuid/follow-ups/:index/`, async (ctx) => {
      const { params, request, body } = ctx as unknown as RouteCtx;
      const raw = requireJsonBody(request, body) as { value?: unknown };
      if (typeof raw?.value !== "string") throw new AppError("VALIDATION_ERROR", "Send {\"value\": \"…\"}.", { errors: [{ pointer: "/value", message: "Expected text." }] });
      return answerFollowUp(probing, await link(params), params.session_id!, params.question_uuid!, followUpIndex(params.index!), { text: raw.value });
    })
    .post(`${base}/sessions/:session_id/answers/:question_uuid/follow-ups/:index/audio/`, async ({ params, body }) => {
      const bytes = recordingOf(body);
      return answerFollowUp(probing, await link(params), params.session_id, params.question_uuid, followUpIndex(params.index), { audio: bytes });
    })
    .post(`${base}/sessions/:session_id/submit/`, async ({ params }) => service.submitSession(d, await link(params), params.session_id));
}
