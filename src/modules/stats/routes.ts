/**
 * @module stats/routes
 * `GET /api/v1/links/{link_uuid}/stats/` (scope `responses:read`): a link's dashboard numbers
 * (issue 11), with an `ETag` from the workspace's change counter (304 when nothing changed).
 */
import { Elysia } from "elysia";
import { statsOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { conditional } from "../../http/conditional.ts";
import { parseWith } from "../../http/validation.ts";
import { statsQuerySchema } from "./model.ts";
import { cachedLinkStats, type StatsCache } from "./service.ts";
import { changeVersion, etagFor } from "../workspaces/change-tag.ts";

/** The dashboard route. */
export function statsRoutes(deps: AppDeps) {
  const d = { db: deps.db };
  const cache: StatsCache = new Map();
  return new Elysia({ name: "stats" }).use(authPlugin(deps)).get(
    statsOps.linkStats.path,
    async ({ params, query, request, set, auth }) => {
      const q = parseWith(statsQuerySchema, query, "query");
      const version = await changeVersion(d, auth.workspaceUuid);
      return conditional(request, set, etagFor(auth, version), auth.rateHeaders, () => cachedLinkStats(cache, version, d, auth, params.link_uuid, q));
    },
    routeOptions(statsOps.linkStats),
  );
}
