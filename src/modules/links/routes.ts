/**
 * @module links/routes
 * `links/` endpoints (spec: Endpoints; DESIGN §6). Thin: parse, call one service function.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { parseBody } from "../../http/operation.ts";
import { AppError } from "../../errors.ts";
import { isBlankText } from "./blank.ts";
import { listLinksQuerySchema } from "./model.ts";
import { linkOps } from "./operations.ts";
import * as service from "./service.ts";

/**
 * Maps a missing or blank name (white space and invisible characters only, e.g. U+200B) to
 * NAME_REQUIRED before general validation (spec: Errors).
 */
function assertName(body: unknown, required: boolean): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  const name = (body as Record<string, unknown>).name;
  if ((name === undefined && required) || name === null || (typeof name === "string" && isBlankText(name))) {
    throw new AppError("NAME_REQUIRED", "A link needs a name.", { errors: [{ pointer: "/name", message: "Name is required." }] });
  }
}

/** `links/` CRUD (spec: Endpoints; DESIGN §6); every route needs a key with links:read or links:write. */
export function linkRoutes(deps: AppDeps) {
  const d = { db: deps.db, publicUrl: deps.config.publicUrl, auth: deps.auth, webhookAllowHosts: deps.config.webhookAllowHosts, clock: deps.clock };
  return new Elysia({ name: "links" })
    .use(authPlugin(deps))
    .post(
      linkOps.create.path,
      async ({ request, body, set, auth }) => {
        const raw = requireJsonBody(request, body);
        assertName(raw, true);
        const link = await service.createLink(d, auth, parseBody(linkOps.create, raw));
        set.status = 201;
        return link;
      },
      routeOptions(linkOps.create),
    )
    .get(
      linkOps.list.path,
      async ({ request, query, auth }) => {
        const page = readPage(query);
        const q = parseWith(listLinksQuerySchema, query, "query");
        const desc = q.ordering.startsWith("-");
        const { count, results } = await service.listLinks(
          d,
          auth,
          { status: q.status, search: q.search, orderBy: q.ordering.replace("-", "") as "date_created", direction: desc ? "desc" : "asc" },
          page.pageSize,
          page.offset,
        );
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      routeOptions(linkOps.list),
    )
    .get(linkOps.get.path, ({ params, auth }) => service.getLink(d, auth, params.link_uuid), routeOptions(linkOps.get))
    .patch(
      linkOps.update.path,
      async ({ params, request, body, auth }) => {
        const raw = requireJsonBody(request, body);
        assertName(raw, false);
        return service.patchLink(d, auth, params.link_uuid, parseBody(linkOps.update, raw));
      },
      routeOptions(linkOps.update),
    )
    .delete(
      linkOps.delete.path,
      async ({ params, auth }) => {
        await service.deleteLink(d, auth, params.link_uuid);
        return { message: "Link deleted." };
      },
      routeOptions(linkOps.delete),
    );
}
