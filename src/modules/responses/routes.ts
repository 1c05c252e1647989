/**
 * @module responses/routes
 * Response endpoints (spec: GET links/{uuid}/responses/; DESIGN §7): per link, workspace-wide,
 * single, erasure, and the recordings behind `audio_url`.
 */
import { Elysia } from "elysia";
import contentDisposition from "content-disposition";
import { authed, type AppDeps, type RouteCtx } from "../../http/context.ts";
import { envelope, readPage, type PageRequest } from "../../http/pagination.ts";
import { parseWith } from "../../http/validation.ts";
import { verifySignedPath } from "../../auth/signed-url.ts";
import { notFound } from "../../errors.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { exportQuerySchema, listResponsesQuerySchema, workspaceExportQuerySchema, type ListResponsesQuery } from "./model.ts";
import { conditional } from "../../http/conditional.ts";
import { changeTag } from "../stats/service.ts";
import { exportResponses } from "./export.ts";
import { isUuid } from "../../shared/uuid.ts";
import { findLink } from "../links/repository.ts";
import * as service from "./service.ts";
import { reprocessResponse } from "./reprocess.ts";
import * as repo from "./repository.ts";
import { sniffAudioMime } from "../../http/media.ts";

/**
 * `Content-Disposition: attachment` for a stored file name (RFC 6266; `filename*` per RFC 5987
 * when it is not Latin-1). Path separators become `_`: the library keeps only a path's last
 * part, and no browser saves a file under a name containing them anyway.
 */
function attachmentHeader(name: string): string {
  return contentDisposition(name.replace(/[\\/]/g, "_"));
}

/** An export stream as a download: CSV or JSON Lines, with the key's RateLimit-* headers. */
function exportResponse(stream: ReadableStream<Uint8Array>, format: "csv" | "jsonl", fileName: string, auth: AuthContext): Response {
  const type = format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson";
  return new Response(stream, { headers: { ...auth.rateHeaders, "content-type": type, "content-disposition": attachmentHeader(fileName) } });
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
  const list = (linkUuid: string | undefined, requireLink: boolean) => async ({ request, query, set }: RouteCtx, auth: AuthContext) => {
    const page = readPage(query);
    const q = parseWith(listResponsesQuerySchema, query, "query");
    const desc = q.ordering.startsWith("-");
    // Live updates: 304 while nothing in the workspace changed (docs/decisions/live-updates.md).
    const tag = await changeTag(deps, auth);
    return conditional(request, set, tag, auth.rateHeaders, () => listPage(request, q, page, desc, linkUuid, requireLink, auth));
  };
  const listPage = async (request: Request, q: ListResponsesQuery, page: PageRequest, desc: boolean, linkUuid: string | undefined, requireLink: boolean, auth: AuthContext) => {
    const { count, results } = await service.listResponses(
      d,
      auth,
      { ...(await service.selectionOf(deps.db, auth.workspaceUuid, linkUuid ?? q.link, q)), orderBy: q.ordering.replace("-", "") as "submitted_at", direction: desc ? "desc" : "asc" },
      page.pageSize,
      page.offset,
      requireLink,
    );
    return envelope(request.url, deps.config.publicUrl, page, count, results);
  };

  /** One response, with the same ETag as the lists (a response page sees its transcript arrive). */
  const one = async ({ params, request, set }: RouteCtx, auth: AuthContext, linkUuid?: string) =>
    conditional(request, set, await changeTag(deps, auth), auth.rateHeaders, () => service.getResponse(d, auth, params.response_uuid!, linkUuid));

  const app = new Elysia({ name: "responses" })
    .get("/api/v1/links/:link_uuid/responses/", (ctx) => authed(deps, "responses:read", (c, a) => list(c.params.link_uuid, true)(c, a))(ctx))
    .get(
      "/api/v1/links/:link_uuid/responses/export/",
      authed(deps, "responses:read", async ({ params, query }, auth) => {
        const { format, ...filters } = parseWith(exportQuerySchema, query, "query");
        const link = isUuid(params.link_uuid!) ? await findLink(deps.db, auth.workspaceUuid, params.link_uuid!) : undefined;
        if (!link) throw notFound("Link");
        const selection = await service.selectionOf(deps.db, auth.workspaceUuid, link.uuid, filters);
        const stopped = (err: unknown) =>
          deps.log.warn("export stopped", { link_uuid: link.uuid, token_uuid: auth.tokenUuid, reason: err instanceof Error ? err.message : String(err) });
        const stream = exportResponses(d, { workspaceUuid: auth.workspaceUuid, link }, selection, format, () => deps.auth.assertActive(deps.db, auth), stopped);
        return exportResponse(stream, format, `${link.slug}-responses.${format}`, auth);
      }),
    )
    .get(
      "/api/v1/responses/export/",
      authed(deps, "responses:read", async ({ query }, auth) => {
        const { format, link, ...filters } = parseWith(workspaceExportQuerySchema, query, "query");
        const selection = await service.selectionOf(deps.db, auth.workspaceUuid, link, filters);
        const stopped = (err: unknown) =>
          deps.log.warn("export stopped", { workspace_uuid: auth.workspaceUuid, token_uuid: auth.tokenUuid, reason: err instanceof Error ? err.message : String(err) });
        const stream = exportResponses(d, { workspaceUuid: auth.workspaceUuid, link: null }, { ...selection, linkUuid: link }, format, () => deps.auth.assertActive(deps.db, auth), stopped);
        return exportResponse(stream, format, `responses.${format}`, auth);
      }),
    )
    .get("/api/v1/links/:link_uuid/responses/:response_uuid/", authed(deps, "responses:read", (c, auth) => one(c, auth, c.params.link_uuid)))
    .get("/api/v1/responses/", authed(deps, "responses:read", (c, a) => list(undefined, false)(c, a)))
    .get("/api/v1/responses/:response_uuid/", authed(deps, "responses:read", (c, auth) => one(c, auth)))
    .delete(
      "/api/v1/responses/:response_uuid/",
      authed(deps, "responses:write", async ({ params }, auth) => {
        await service.deleteResponse(d, auth, params.response_uuid!);
        return { message: "Response deleted." };
      }),
    )
    .post("/api/v1/responses/:response_uuid/reprocess/", authed(deps, "responses:write", ({ params }, auth) => reprocessResponse({ db: deps.db, auth: deps.auth, nudgeJobs: deps.nudgeJobs }, auth, params.response_uuid!)))
    .get(
      "/api/v1/responses/:response_uuid/answers/:answer_uuid/file/",
      authed(deps, "responses:read", async ({ params }, auth) => {
        const r = await repo.findResponse(deps.db, auth.workspaceUuid, params.response_uuid!);
        const a = r && isUuid(params.answer_uuid!) ? await repo.findAnswer(deps.db, params.answer_uuid!) : undefined;
        if (!r || !a || a.response_uuid !== r.uuid || !a.file_blob || !a.file_meta) throw notFound("File");
        const meta = JSON.parse(a.file_meta) as { name: string; content_type: string };
        const local = deps.blobs.localPath(a.file_blob);
        const body = (await deps.blobs.size(a.file_blob)) === null ? null : local ? Bun.file(local) : await deps.blobs.stream(a.file_blob);
        if (!body) throw notFound("File");
        return new Response(body, {
          headers: { ...auth.rateHeaders, "content-type": meta.content_type, "content-disposition": attachmentHeader(meta.name), "x-content-type-options": "nosniff" },
        });
      }),
    )
    .get("/api/v1/responses/:response_uuid/answers/:answer_uuid/audio/", (ctx) => recording(ctx, (a) => (a.audio_blob ? { key: a.audio_blob, mime: a.audio_mime } : null)))
    .get("/api/v1/responses/:response_uuid/answers/:answer_uuid/follow-ups/:index/audio/", (ctx) =>
      recording(ctx, (a) => {
        const f = (JSON.parse(a.follow_ups) as { audio_blob?: string | null }[])[Number((ctx.params as Record<string, string>).index)];
        return f?.audio_blob ? { key: f.audio_blob, mime: null } : null;
      }),
    );

  /**
   * Streams a recording to a Bearer key with responses:read, or to anyone holding a valid
   * signature of this exact path (`audio_url`, DESIGN §7).
   */
  async function recording(ctx: unknown, pick: (a: repo.AnswerRow) => { key: string; mime: string | null } | null): Promise<Response> {
    const { params, query, request } = ctx as RouteCtx;
    const path = new URL(request.url).pathname;
    const stream = async (workspaceUuid: string | null, extraHeaders: Record<string, string>): Promise<Response> => {
      const r = workspaceUuid && isUuid(params.response_uuid!) ? await repo.findResponse(deps.db, workspaceUuid, params.response_uuid!) : undefined;
      const a = r && isUuid(params.answer_uuid!) ? await repo.findAnswer(deps.db, params.answer_uuid!) : undefined;
      const blob = a && a.response_uuid === r!.uuid ? pick(a) : null;
      // Streamed from the blob store (a file, or PostgreSQL chunks), never read whole.
      const local = blob ? deps.blobs.localPath(blob.key) : null;
      const head = blob ? await deps.blobs.head(blob.key, 16) : null;
      if (!blob || !head) throw notFound("Recording");
      const body = local ? Bun.file(local) : await deps.blobs.stream(blob.key);
      if (!body) throw notFound("Recording");
      const type = blob.mime ?? sniffAudioMime(head) ?? "application/octet-stream";
      return new Response(body, { headers: { ...extraHeaders, "content-type": type, "cache-control": "private, max-age=300" } });
    };
    if (!request.headers.get("authorization") && verifySignedPath(deps.signingSecret, path, query.exp, query.sig)) {
      const r = isUuid(params.response_uuid!) ? await repo.findResponseByUuid(deps.db, params.response_uuid!) : undefined;
      return stream(r?.workspace_uuid ?? null, {});
    }
    return authed(deps, "responses:read", (_c, auth) => stream(auth.workspaceUuid, auth.rateHeaders))(ctx);
  }

  return app;
}
