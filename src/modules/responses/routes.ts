/**
 * @module responses/routes
 * Response endpoints (spec: GET links/{uuid}/responses/; DESIGN §7): per link, workspace-wide,
 * single, erasure, and the recordings behind `audio_url`.
 */
import { Elysia } from "elysia";
import { responseOps } from "./operations.ts";
import contentDisposition from "content-disposition";
import type { AppDeps } from "../../http/context.ts";
import { authenticateRequest, authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith } from "../../http/validation.ts";
import { verifySignedPath } from "../../auth/signed-url.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import type { AnyScope } from "../../auth/keys.ts";
import { exportQuerySchema, listResponsesQuerySchema, workspaceExportQuerySchema } from "./model.ts";
import { conditional } from "../../http/conditional.ts";
import { changeTag } from "../workspaces/change-tag.ts";
import * as downloads from "./downloads.ts";
import * as service from "./service.ts";
import { reprocessResponse } from "./reprocess.ts";
import { hiddenFiltersOf } from "./hidden-filter.ts";

/**
 * `Content-Disposition: attachment` for a stored file name (RFC 6266; `filename*` per RFC 5987
 * when it is not Latin-1). Path separators become `_`: the library keeps only a path's last
 * part, and no browser saves a file under a name containing them anyway.
 */
function attachmentHeader(name: string): string {
  return contentDisposition(name.replace(/[\\/]/g, "_"));
}

/** An export stream as a download: CSV or JSON Lines, with the key's RateLimit-* headers. */
function exportResponse(e: downloads.ResponseExport, auth: AuthContext): Response {
  const type = e.format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson";
  return new Response(e.stream, { headers: { ...auth.rateHeaders, "content-type": type, "content-disposition": attachmentHeader(e.fileName) } });
}

/** Response lists, retrieval, export, erasure and recordings (DESIGN §7). */
export function responseRoutes(deps: AppDeps) {
  const d: service.ResponseDeps = {
    db: deps.db,
    publicUrl: deps.config.publicUrl,
    auth: deps.auth,
    blobs: deps.blobs,
    signingSecret: deps.signingSecret,
    audioUrlTtlS: deps.config.audioUrlTtlS,
  };
  const exportDeps = { ...d, log: deps.log };

  /** A page of responses: of one link (`requireLink`: 404 for another workspace's), or of any. */
  const list = async (
    request: Request,
    query: Record<string, string | undefined>,
    set: { headers: Record<string, string | number> },
    auth: AuthContext,
    linkUuid: string | undefined,
    requireLink: boolean,
  ) => {
    const page = readPage(query);
    const q = { ...parseWith(listResponsesQuerySchema, query, "query"), hidden: hiddenFiltersOf(query) };
    const desc = q.ordering.startsWith("-");
    // Live updates: 304 while nothing in the workspace changed (docs/decisions/live-updates.md).
    const tag = await changeTag(deps, auth);
    return conditional(request, set, tag, auth.rateHeaders, async () => {
      const selection = await service.selectionOf(deps.db, auth.workspaceUuid, linkUuid ?? q.link, q);
      const filter = { ...selection, orderBy: q.ordering.replace("-", "") as "submitted_at", direction: desc ? ("desc" as const) : ("asc" as const) };
      const { count, results } = await service.listResponses(d, auth, filter, page.pageSize, page.offset, requireLink);
      return envelope(request.url, deps.config.publicUrl, page, count, results);
    });
  };

  /** One response, with the same ETag as the lists (a response page sees its transcript arrive). */
  const one = async (request: Request, set: { headers: Record<string, string | number> }, auth: AuthContext, responseUuid: string, linkUuid?: string) =>
    conditional(request, set, await changeTag(deps, auth), auth.rateHeaders, () => service.getResponse(d, auth, responseUuid, linkUuid));

  /**
   * Streams a recording to a Bearer key with the declaration's scope (responses:read), or to anyone holding a valid
   * signature of this exact path (`audio_url`, DESIGN §7).
   */
  const recording = async (
    ctx: {
      request: Request;
      query: Record<string, string | undefined>;
      server: Parameters<typeof authenticateRequest>[1]["server"];
      set: { headers: Record<string, string | number> };
    },
    responseUuid: string,
    answerUuid: string,
    which: downloads.RecordingRef,
    scope: AnyScope,
  ): Promise<Response> => {
    const { request, query } = ctx;
    const answer = (workspaceUuid: string | null, headers: Record<string, string>) =>
      downloads
        .recording(d, workspaceUuid, responseUuid, answerUuid, which)
        .then((rec) => new Response(rec.body, { headers: { ...headers, "content-type": rec.contentType, "cache-control": "private, max-age=300" } }));
    if (!request.headers.get("authorization") && verifySignedPath(deps.signingSecret, new URL(request.url).pathname, query.exp, query.sig)) {
      return answer(await downloads.workspaceOfResponse(d, responseUuid), {});
    }
    // As the auth macro does: authenticate, answer, re-check the key before responding.
    const auth = await authenticateRequest(deps, ctx, scope);
    const response = await answer(auth.workspaceUuid, auth.rateHeaders);
    await deps.auth.assertActive(deps.db, auth);
    return response;
  };

  return new Elysia({ name: "responses" })
    .use(authPlugin(deps))
    .get(
      responseOps.listOfLink.path,
      ({ request, query, set, params, auth }) => list(request, query, set, auth, params.link_uuid, true),
      routeOptions(responseOps.listOfLink),
    )
    .get(
      responseOps.exportOfLink.path,
      async ({ params, query, auth }) => {
        const { format, ...filters } = parseWith(exportQuerySchema, query, "query");
        const hidden = hiddenFiltersOf(query);
        return exportResponse(await downloads.exportLinkResponses(exportDeps, auth, params.link_uuid, format, { ...filters, hidden }), auth);
      },
      routeOptions(responseOps.exportOfLink),
    )
    .get(
      responseOps.export.path,
      async ({ query, auth }) => {
        const { format, link, ...filters } = parseWith(workspaceExportQuerySchema, query, "query");
        const hidden = hiddenFiltersOf(query);
        return exportResponse(await downloads.exportWorkspaceResponses(exportDeps, auth, link, format, { ...filters, hidden }), auth);
      },
      routeOptions(responseOps.export),
    )
    .get(
      responseOps.getOfLink.path,
      ({ request, set, params, auth }) => one(request, set, auth, params.response_uuid, params.link_uuid),
      routeOptions(responseOps.getOfLink),
    )
    .get(responseOps.list.path, ({ request, query, set, auth }) => list(request, query, set, auth, undefined, false), routeOptions(responseOps.list))
    .get(responseOps.get.path, ({ request, set, params, auth }) => one(request, set, auth, params.response_uuid), routeOptions(responseOps.get))
    .delete(
      responseOps.erase.path,
      async ({ params, auth }) => {
        await service.deleteResponse(d, auth, params.response_uuid);
        return { message: "Response deleted." };
      },
      routeOptions(responseOps.erase),
    )
    .post(
      responseOps.reprocess.path,
      ({ params, auth }) => reprocessResponse({ db: deps.db, auth: deps.auth, nudgeJobs: deps.nudgeJobs }, auth, params.response_uuid),
      routeOptions(responseOps.reprocess),
    )
    .get(
      responseOps.file.path,
      async ({ params, auth }) => {
        const file = await downloads.answerFile(d, auth, params.response_uuid, params.answer_uuid);
        return new Response(file.body, {
          headers: {
            ...auth.rateHeaders,
            "content-type": file.contentType,
            "content-disposition": attachmentHeader(file.fileName ?? "file"),
            "x-content-type-options": "nosniff",
          },
        });
      },
      routeOptions(responseOps.file),
    )
    .get(responseOps.audio.path, (ctx) => recording(ctx, ctx.params.response_uuid, ctx.params.answer_uuid, { kind: "answer" }, responseOps.audio.scope))
    .get(responseOps.followUpAudio.path, (ctx) =>
      recording(ctx, ctx.params.response_uuid, ctx.params.answer_uuid, { kind: "follow_up", index: Number(ctx.params.index) }, responseOps.followUpAudio.scope),
    );
}
