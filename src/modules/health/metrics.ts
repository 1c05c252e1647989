/**
 * @module health/metrics
 * Who may read `GET /metrics` and what it answers (DESIGN §14): the bearer token
 * `EARSHOT_METRICS_TOKEN`, or (through the usual authentication) an API key or console session
 * holding `metrics:read`; never on a workspace's dedicated intake origin, which answers 404 as for
 * any unknown path there.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { AppDeps } from "../../http/context.ts";
import { scrapeMetrics } from "../../metrics/collect.ts";
import { workspaceSlugOfHost } from "../workspaces/service.ts";

export { METRICS_CONTENT_TYPE } from "../../metrics/collect.ts";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * True when the request carries `Authorization: Bearer <EARSHOT_METRICS_TOKEN>` (compared in
 * constant time over digests, so neither length nor prefix leaks).
 */
export function hasMetricsToken(request: Request, token: string | null): boolean {
  if (!token) return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return !!m && timingSafeEqual(digest(m[1]!), digest(token));
}

/** True when the request's `Host` is a workspace's dedicated intake origin (DESIGN §3). */
export async function isIntakeHost(deps: Pick<AppDeps, "db">, request: Request): Promise<boolean> {
  return (await workspaceSlugOfHost(deps.db, request.headers.get("host"))) !== null;
}

/**
 * The exposition text (Prometheus text format 0.0.4).
 * @throws what the database throws (unreachable: the error handler answers 503)
 */
export function metricsText(deps: Pick<AppDeps, "db" | "config">): Promise<string> {
  return scrapeMetrics(deps.db, deps.config.dbFile);
}
