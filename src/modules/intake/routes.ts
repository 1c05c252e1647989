/**
 * @module intake/routes
 * The public intake surface (docs/intake.md): the page at `public_url`, its assets, and the
 * session API the page calls. No API key; the session id is the respondent's credential.
 */
import { Elysia } from "elysia";
import { intakeOps } from "./operations.ts";
import { peerOf, type AppDeps } from "../../http/context.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { PendingBody, filePartOf, parseMultipart, payloadTooLarge } from "../../http/body.ts";
import { AppError } from "../../errors.ts";
import { renderIntakePage, renderMessagePage } from "../../http/web-assets.ts";
import { compressedPage, createAssetServer } from "../../http/asset-delivery.ts";
import { contentLanguageOf, negotiateLanguage, pageText } from "../../http/intake-language.ts";
import { translatedText } from "../../shared/translations.ts";
import { workspaceSlugOfHost } from "../workspaces/service.ts";
import * as service from "./service.ts";
import { closedReason } from "./closing.ts";
import { consentLanguageOf } from "./consent.ts";
import { sniffAudioMime } from "../../http/media.ts";
import { answerFollowUp, probeAnswer } from "./probing.ts";
import { checkHiddenValues, hiddenFieldsOf } from "../links/hidden-fields.ts";
import { createKioskExitChecker, refuseKioskResume } from "./kiosk.ts";

import { intakeFrameAncestors, intakePagePolicy } from "../embed/frame-ancestors.ts";
import { addressUploadBudgetSpent, audioCapBytes, clientAddress, fileCapBytes, intakeLimiterOf, MULTIPART_ALLOWANCE, storedUploadBytes } from "./limits.ts";

/**
 * The bytes of a recording upload, already read within its cap.
 * @throws AppError UNSUPPORTED_MEDIA_TYPE (not WebM/Ogg/WAV), VALIDATION_ERROR (empty)
 */
function recordingOf(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0) throw new AppError("VALIDATION_ERROR", "The recording is empty.");
  if (!sniffAudioMime(bytes)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send WebM/Opus, Ogg/Opus or WAV audio.");
  return bytes;
}

/**
 * Only the members in `allowed` may appear in an intake JSON body.
 * @throws AppError VALIDATION_ERROR with one pointer per unknown member
 */
function refuseUnknownMembers(raw: object, allowed: readonly string[]): void {
  const unknown = Object.keys(raw).filter((k) => !allowed.includes(k));
  if (unknown.length) {
    throw new AppError("VALIDATION_ERROR", `Unknown field: /${unknown[0]}.`, {
      errors: unknown.map((k) => ({ pointer: `/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`, message: "Unknown field." })),
    });
  }
}

function followUpIndex(raw: string): number {
  if (!/^\d{1,2}$/.test(raw)) throw new AppError("NOT_FOUND", "Follow-up not found.");
  return Number(raw);
}

/** An HTML page, compressed as the request accepts (http/asset-delivery.ts). */
function html(body: string, status: number, request: Headers): Response {
  return compressedPage(request.get("accept-encoding"), body, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, status);
}

/** The path parameters of an upload route. */
type UploadParams = { workspace_slug: string; link_slug: string; session_id: string; question_uuid: string };

/** The intake page, its assets and the public session API (docs/intake.md); no API key. */
export function intakeRoutes(deps: AppDeps) {
  const d: service.IntakeDeps = service.intakeDepsOf(deps);
  const link = (p: { workspace_slug: string; link_slug: string }) => service.findIntakeLink(deps.db, p.workspace_slug, p.link_slug);
  const limiter = intakeLimiterOf(deps);
  const checkKioskExit = createKioskExitChecker(deps.db);
  const probing = { db: deps.db, blobs: deps.blobs, inference: deps.inference, log: deps.log, limiter };
  // Every web asset (intake and console): brotli/gzip, ETag, a year's caching of versioned URLs (http/asset-delivery.ts).
  const assets = createAssetServer(deps.webAssets);
  const versions = {
    js: assets.versionOf("/assets/intake.js"),
    css: assets.versionOf("/assets/intake.css"),
    embed: assets.versionOf("/assets/intake-embed.js"),
    kiosk: assets.versionOf("/assets/intake-kiosk.css"),
  };

  /**
   * Admits an upload, reads its body within the smallest of the question's cap, what is left of
   * the session's allowance (stored bytes and the session's other uploads in flight) and what is
   * left of the client address's hourly budget, then runs `use` (which stores it). The upload holds
   * its share of the allowance until `use` has finished, so parallel uploads cannot together pass
   * it. Nothing is read before the link, session and question check out.
   * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR, RATE_LIMITED, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE
   */
  async function withUpload<T>(
    c: { params: UploadParams; body: unknown; request: Request; server: Parameters<typeof peerOf>[0]["server"] },
    kind: service.UploadKind,
    use: (upload: { l: service.IntakeLink; bytes: Uint8Array; pending: PendingBody | null }) => Promise<T>,
  ): Promise<T> {
    const { params } = c;
    const l = await link(params);
    const { response, configuration } = await service.admitUpload(d, l, params.session_id, params.question_uuid, kind);
    const pending = c.body instanceof PendingBody ? c.body : null;
    if (kind === "file" && pending?.contentType !== "multipart/form-data") {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the file as multipart/form-data with a part named file.");
    }
    limiter.takeUpload(params.session_id);
    const cap = kind === "file" ? fileCapBytes(configuration) + MULTIPART_ALLOWANCE : audioCapBytes(configuration);
    // Hold before reading the stored bytes, release after storing: see IntakeLimiter.holdUpload.
    const hold = limiter.holdUpload(params.session_id, clientAddress(c.request, peerOf(c), deps.config.trustedProxies), cap);
    try {
      const allowance = deps.config.intakeSessionUploadBytes;
      const sessionLeft =
        allowance - hold.othersInFlight - (await storedUploadBytes(deps.db, deps.blobs, response.uuid, kind === "follow-up" ? null : params.question_uuid));
      const max = Math.max(0, Math.min(cap, sessionLeft, hold.addressLeft));
      hold.shrink(max);
      let bytes: Uint8Array = new Uint8Array(0);
      if (pending) {
        try {
          bytes = await pending.read(max, kind === "file" ? "Uploads for this question" : "Recordings for this question");
        } catch (err) {
          if (err instanceof AppError && err.code === "PAYLOAD_TOO_LARGE") {
            hold.received(max);
            if (sessionLeft < cap && sessionLeft <= hold.addressLeft) throw payloadTooLarge(allowance, "The uploads of one session");
            if (hold.addressLeft < cap) throw addressUploadBudgetSpent(hold.retryAfterS);
          }
          throw err;
        }
      }
      hold.received(bytes.length);
      return await use({ l, bytes, pending });
    } finally {
      hold.release();
    }
  }

  /** The 404 page in the respondent's language (docs/intake.md "Languages"). */
  function notFoundPage(headers: Headers): Response {
    const lang = negotiateLanguage(headers, null);
    return html(renderMessagePage(pageText(lang, "page.notFound.title"), pageText(lang, "page.notFound.text"), lang, versions), 404, headers);
  }

  /** The localised page for an invitation that cannot be used (DESIGN §13), or null to show the form. */
  async function invitationPage(l: service.IntakeLink, invitation: string | null, title: string, lang: string, headers: Headers): Promise<Response | null> {
    const refused = await service.invitationRefusalOf(d, l, invitation);
    if (!refused) return null;
    // Literal keys: the catalog test checks that every key is used.
    const texts = {
      INVITATION_REQUIRED: ["page.invitation.required.title", "page.invitation.required.text"],
      INVITATION_USED: ["page.invitation.used.title", "page.invitation.used.text"],
      INVITATION_EXPIRED: ["page.invitation.expired.title", "page.invitation.expired.text"],
      INVITATION_REVOKED: ["page.invitation.revoked.title", "page.invitation.revoked.text"],
    } as const;
    const [heading, text] = texts[refused.code as keyof typeof texts] ?? texts.INVITATION_REQUIRED;
    return html(renderMessagePage(`${title} · ${pageText(lang, heading)}`, pageText(lang, text), lang, versions), refused.status, headers);
  }

  /**
   * A link's page with the workspace's `frame-ancestors` (issue 29, modules/embed/): a route's own
   * `Content-Security-Policy` wins over the one app.ts sets before routing.
   */
  async function page(wsSlug: string, linkSlug: string, headers: Headers, query: URLSearchParams): Promise<Response> {
    let l: service.IntakeLink;
    try {
      l = await service.findIntakeLink(deps.db, wsSlug, linkSlug);
    } catch {
      return notFoundPage(headers);
    }
    const frameOrigins = intakeFrameAncestors(deps.config.frameAncestors, l.ws, query.get("preview") === "1");
    const res = await linkPage(l, wsSlug, linkSlug, headers, query.get("inv"), frameOrigins);
    res.headers.set("content-security-policy", intakePagePolicy(frameOrigins));
    return res;
  }

  async function linkPage(
    l: service.IntakeLink,
    wsSlug: string,
    linkSlug: string,
    headers: Headers,
    invitation: string | null,
    frameOrigins: string[],
  ): Promise<Response> {
    const pub = service.toPublicLink(l, await closedReason(d, l));
    const linkLanguage = (pub.settings as { language?: string | null }).language;
    const lang = negotiateLanguage(headers, linkLanguage);
    const translated = [...new Set([...Object.keys(pub.translations ?? {}), ...pub.questions.flatMap((q) => Object.keys(q.translations ?? {}))])];
    const contentLanguage = contentLanguageOf(headers, linkLanguage, translated, lang);
    const title = translatedText(pub.translations, contentLanguage ?? lang, "name") || l.link.name;
    if (l.link.status !== "active") return html(renderMessagePage(title, pageText(lang, "page.paused.text"), lang, versions), 200, headers);
    const refused = await invitationPage(l, invitation, title, lang, headers);
    if (refused) return refused;
    const description = translatedText(pub.translations, contentLanguage ?? lang, "description") || pub.settings.description;
    return html(
      renderIntakePage({
        title,
        apiBase: `/api/v1/intake/${wsSlug}/${linkSlug}/`,
        link: pub,
        description,
        language: lang,
        contentLanguage,
        assetVersions: versions,
        frameOrigins,
        kiosk: (pub.settings as { kiosk?: { enabled?: boolean } | null }).kiosk?.enabled === true,
      }),
      200,
      headers,
    );
  }

  const app = new Elysia({ name: "intake" });
  for (const path of assets.paths) app.get(path, ({ request }) => assets.serve(path, request));
  return app
    .get("/w/:workspace_slug/i/:link_slug", ({ params, request }) =>
      page(params.workspace_slug, params.link_slug, request.headers, new URL(request.url).searchParams),
    )
    .get("/i/:link_slug", async ({ params, request }) => {
      // A workspace's dedicated origin serves its links at the root (DESIGN §3).
      const wsSlug = await workspaceSlugOfHost(deps.db, request.headers.get("host"));
      if (!wsSlug) return notFoundPage(request.headers);
      return page(wsSlug, params.link_slug, request.headers, new URL(request.url).searchParams);
    })
    .get(intakeOps.link.path, async ({ params }) => {
      const l = await link(params);
      return { link: service.toPublicLink(l, await closedReason(d, l)) };
    })
    .post(intakeOps.start.path, async ({ params, set, request, server, body }) => {
      // The body is optional ({} or none; DESIGN §13): `hidden` holds the intake URL's hidden-field
      // values, `invitation` the personal URL's `inv` token, `consent` agrees to a
      // `required_before: "start"` consent text. As before issue 25, a body that is not JSON is ignored.
      const isJson = /^application\/([a-z.+-]+\+)?json\b/i.test(request.headers.get("content-type") ?? "");
      const empty = body === undefined || body === null || body === "";
      const raw = isJson && !empty ? requireJsonBody(request, body) : {};
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
        throw new AppError("VALIDATION_ERROR", 'Send {} or {"hidden": {…}, "invitation": …, "consent": {"language": …}}.', {
          errors: [{ pointer: "", message: "Expected an object." }],
        });
      }
      refuseUnknownMembers(raw, ["hidden", "invitation", "consent"]);
      const members = raw as { hidden?: unknown; invitation?: unknown; consent?: unknown };
      const l = await link(params);
      const hidden = checkHiddenValues(hiddenFieldsOf(JSON.parse(l.link.settings)), members.hidden);
      const consent = members.consent === undefined ? undefined : { language: consentLanguageOf(members.consent) };
      limiter.takeSessionStart(clientAddress(request, peerOf({ request, server }), deps.config.trustedProxies), l.link.uuid);
      const { resumed, ...s } = await service.startSession(d, l, { hidden, invitation: members.invitation, consent });
      // An invitation already bound to a started response resumes it: nothing was created.
      set.status = resumed ? 200 : 201;
      return s;
    })
    .get(intakeOps.session.path, async ({ params }) => {
      const l = await link(params);
      refuseKioskResume(l);
      return service.getSession(d, l, params.session_id);
    })
    .post(intakeOps.kioskExit.path, async ({ params, request, server, body }) => {
      const raw = requireJsonBody(request, body) as { pin?: unknown };
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw new AppError("VALIDATION_ERROR", 'Send {"pin": "…"}.', { errors: [{ pointer: "", message: "Expected an object." }] });
      refuseUnknownMembers(raw, ["pin"]);
      return checkKioskExit(await link(params), clientAddress(request, peerOf({ request, server }), deps.config.trustedProxies), raw.pin);
    })
    .post(intakeOps.consent.path, async ({ params, request, body }) => {
      const raw = request.headers.get("content-type") ? requireJsonBody(request, body) : {};
      return service.giveConsent(d, await link(params), params.session_id, consentLanguageOf(raw));
    })
    .put(intakeOps.answer.path, async ({ params, request, body }) => {
      const raw = requireJsonBody(request, body) as { value?: unknown };
      if (typeof raw !== "object" || raw === null || Array.isArray(raw) || !("value" in raw)) {
        throw new AppError("VALIDATION_ERROR", 'Send {"value": …}.', { errors: [{ pointer: "/value", message: "Required." }] });
      }
      refuseUnknownMembers(raw, ["value"]);
      return service.saveAnswer(d, await link(params), params.session_id, params.question_uuid, raw.value);
    })
    .post(intakeOps.audio.path, async (ctx) =>
      withUpload(ctx, "audio", async (upload) => {
        const { params, query } = ctx;
        const bytes = recordingOf(upload.bytes);
        const mime = sniffAudioMime(bytes)!;
        const duration = query.duration !== undefined && /^\d+(\.\d+)?$/.test(query.duration) ? Number(query.duration) : null;
        return service.saveAudio(d, upload.l, params.session_id, params.question_uuid, bytes, mime, duration);
      }),
    )
    .post(intakeOps.file.path, async (ctx) =>
      withUpload(ctx, "file", async (upload) => {
        const form = await parseMultipart(upload.bytes, upload.pending!.request.headers.get("content-type") ?? "");
        const { file, name } = filePartOf(form);
        return service.saveFile(d, upload.l, ctx.params.session_id, ctx.params.question_uuid, file, name);
      }),
    )
    .post(intakeOps.probe.path, async ({ params }) => probeAnswer(probing, await link(params), params.session_id, params.question_uuid))
    .put(intakeOps.followUp.path, async ({ params, request, body }) => {
      const raw = requireJsonBody(request, body) as { value?: unknown };
      if (typeof raw?.value !== "string")
        throw new AppError("VALIDATION_ERROR", 'Send {"value": "…"}.', { errors: [{ pointer: "/value", message: "Expected text." }] });
      refuseUnknownMembers(raw, ["value"]);
      return answerFollowUp(probing, await link(params), params.session_id, params.question_uuid, followUpIndex(params.index), { text: raw.value });
    })
    .post(intakeOps.followUpAudio.path, async (ctx) => {
      const { params } = ctx;
      const index = followUpIndex(params.index);
      return withUpload(ctx, "follow-up", (upload) =>
        answerFollowUp(probing, upload.l, params.session_id, params.question_uuid, index, { audio: recordingOf(upload.bytes) }),
      );
    })
    .post(intakeOps.submit.path, async ({ params }) => service.submitSession(d, await link(params), params.session_id));
}
