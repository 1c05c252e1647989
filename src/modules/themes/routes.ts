/**
 * @module themes/routes
 * Themes across responses (DESIGN §12; docs/api.md "Themes"): `links/{link_uuid}/themes/` (list,
 * create, status, rebuild), `…/themes/{theme_uuid}/` (read, rename/pin, delete, merge) and
 * `links/{link_uuid}/summary/`. Reads need `responses:read`, writes `responses:write`; writes are
 * audited by the central hook (audit/hook.ts).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith } from "../../http/validation.ts";
import { createThemeSchema, listThemesQuerySchema, mergeThemeSchema, patchThemeSchema, summaryQuerySchema } from "./model.ts";
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
  const THEMES = "/api/v1/links/:link_uuid/themes/";
  const THEME = `${THEMES}:theme_uuid/`;
  return new Elysia({ name: "themes" })
    .use(authPlugin(deps))
    .get(
      THEMES,
      async ({ params, query, request, auth }) => {
        const page = readPage(query);
        const q = parseWith(listThemesQuerySchema, query, "query");
        const { count, results } = await service.listThemes(d, auth, params.link_uuid, q.question, page.pageSize, page.offset);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      { auth: "responses:read" },
    )
    .post(
      THEMES,
      async ({ params, body, set, auth }) => {
        const theme = await service.createTheme(d, auth, params.link_uuid, parseWith(createThemeSchema, body ?? {}, "body"));
        set.status = 201;
        return theme;
      },
      { auth: "responses:write" },
    )
    .get(`${THEMES}status/`, ({ params, auth }) => service.themeStatus(d, auth, params.link_uuid), { auth: "responses:read" })
    .post(
      `${THEMES}rebuild/`,
      async ({ params, set, auth }) => {
        const status = await service.requestRebuild(d, auth, params.link_uuid);
        deps.nudgeJobs();
        set.status = 202;
        return status;
      },
      { auth: "responses:write" },
    )
    .get(THEME, ({ params, auth }) => service.getTheme(d, auth, params.link_uuid, params.theme_uuid), { auth: "responses:read" })
    .patch(
      THEME,
      ({ params, body, auth }) => service.patchTheme(d, auth, params.link_uuid, params.theme_uuid, parseWith(patchThemeSchema, body ?? {}, "body")),
      { auth: "responses:write" },
    )
    .delete(
      THEME,
      async ({ params, auth }) => {
        await service.deleteTheme(d, auth, params.link_uuid, params.theme_uuid);
        return { message: "Theme deleted." };
      },
      { auth: "responses:write" },
    )
    .post(
      `${THEME}merge/`,
      ({ params, body, auth }) => service.mergeTheme(d, auth, params.link_uuid, params.theme_uuid, parseWith(mergeThemeSchema, body ?? {}, "body").into),
      { auth: "responses:write" },
    )
    .get(
      "/api/v1/links/:link_uuid/summary/",
      ({ params, query, auth }) => linkSummary(d, auth, params.link_uuid, parseWith(summaryQuerySchema, query, "query")),
      { auth: "responses:read" },
    );
}
