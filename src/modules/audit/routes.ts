/**
 * @module audit/routes
 * `GET audit/` (scope `audit:read`): the workspace's audit log, newest first, paginated, with
 * filters `action` (exact, or a prefix ending in "."), `actor`, `since`, `until`.
 */
import { Elysia } from "elysia";
import { auditOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith } from "../../http/validation.ts";
import { auditQuerySchema, listAuditEntries } from "./service.ts";

/** The audit log route. */
export function auditRoutes(deps: AppDeps) {
  return new Elysia({ name: "audit" }).use(authPlugin(deps)).get(
    auditOps.log.path,
    async ({ request, query, auth }) => {
      const page = readPage(query);
      // An empty filter (a cleared form field) means no filter.
      const q = parseWith(
        auditQuerySchema,
        { action: query.action || undefined, actor: query.actor || undefined, since: query.since || undefined, until: query.until || undefined },
        "query",
      );
      const { count, results } = await listAuditEntries(deps.db, auth.workspaceUuid, q, page.pageSize, page.offset);
      return envelope(request.url, deps.config.publicUrl, page, count, results);
    },
    routeOptions(auditOps.log),
  );
}
