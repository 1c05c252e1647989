/**
 * @module themes/routes
 * Themes across responses (DESIGN §12; docs/api.md "Themes"): `links/{link_uuid}/themes/` (list,
 * create, status, rebuild), `…/themes/{theme_uuid}/` (read, rename/pin, delete, merge) and
 * `links/{link_uuid}/summary/`. Reads need `responses:read`, writes `responses:write`; writes are
 * audited by the central hook (audit/hook.ts).
 */
import { Elysia } from "elysia";
import { parseBody } from "../../http/operation.ts";
import { themeOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith } from "../../http/validation.ts";
import { listThemesQuerySchema, summaryQuerySchema } from "./model.ts";
import * as service from "./service.ts";
import { linkSummary } from "./summary.ts";

/** The themes routes. */
export function themeRoutes(deps: AppDeps) {
  const d: service.ThemeDeps = {
    db: deps.db,
    auth: deps.auth,
    publicUrl: deps.config.publicUrl,
    signingSecret: deps.signingSecret,
    audioUrlTtlS: deps.config.audioUrlTtlS,
  };
  return new Elysia({ name: "themes" })
    .use(authPlugin(deps))
    .get(
      themeOps.list.path,
      async ({ params, query, request, auth }) => {
        const page = readPage(query);
        const q = parseWith(listThemesQuerySchema, query, "query");
        const { count, results } = await service.listThemes(d, auth, params.link_uuid, q.question, page.pageSize, page.offset);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      routeOptions(themeOps.list),
    )
    .post(
      themeOps.create.path,
      async ({ params, body, set, auth }) => {
        const theme = await service.createTheme(d, auth, params.link_uuid, parseBody(themeOps.create, body ?? {}, "body"));
        set.status = 201;
        return theme;
      },
      routeOptions(themeOps.create),
    )
    .get(themeOps.status.path, ({ params, auth }) => service.themeStatus(d, auth, params.link_uuid), routeOptions(themeOps.status))
    .post(
      themeOps.rebuild.path,
      async ({ params, set, auth }) => {
        const status = await service.requestRebuild(d, auth, params.link_uuid);
        deps.nudgeJobs();
        set.status = 202;
        return status;
      },
      routeOptions(themeOps.rebuild),
    )
    .get(themeOps.get.path, ({ params, auth }) => service.getTheme(d, auth, params.link_uuid, params.theme_uuid), routeOptions(themeOps.get))
    .patch(
      themeOps.update.path,
      ({ params, body, auth }) => service.patchTheme(d, auth, params.link_uuid, params.theme_uuid, parseBody(themeOps.update, body ?? {}, "body")),
      routeOptions(themeOps.update),
    )
    .delete(
      themeOps.delete.path,
      async ({ params, auth }) => {
        await service.deleteTheme(d, auth, params.link_uuid, params.theme_uuid);
        return { message: "Theme deleted." };
      },
      routeOptions(themeOps.delete),
    )
    .post(
      themeOps.merge.path,
      ({ params, body, auth }) => service.mergeTheme(d, auth, params.link_uuid, params.theme_uuid, parseBody(themeOps.merge, body ?? {}, "body").into),
      routeOptions(themeOps.merge),
    )
    .get(
      themeOps.summary.path,
      ({ params, query, auth }) => linkSummary(d, auth, params.link_uuid, parseWith(summaryQuerySchema, query, "query")),
      routeOptions(themeOps.summary),
    );
}
