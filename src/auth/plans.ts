/**
 * @module auth/plans
 * Plan limits (DESIGN §3): free = 10 links, 30 requests/min per key; pro = 100 links, 120/min;
 * enterprise = unlimited links, 600/min by default. Both numbers are overridable per workspace.
 */
export const PLANS = ["free", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

const DEFAULTS: Record<Plan, { links: number | null; requestsPerMinute: number }> = {
  free: { links: 10, requestsPerMinute: 30 },
  pro: { links: 100, requestsPerMinute: 120 },
  enterprise: { links: null, requestsPerMinute: 600 },
};

/** Stored in `links_limit` for an explicit "unlimited" override (null there means the plan's default). */
export const UNLIMITED_LINKS = -1;

/** Effective limits: the workspace's overrides, else its plan's defaults (`links: null` = unlimited). */
export function limitsFor(ws: { plan: Plan; links_limit: number | null; requests_per_minute: number | null }) {
  const d = DEFAULTS[ws.plan];
  const links = ws.links_limit === UNLIMITED_LINKS ? null : (ws.links_limit ?? d.links);
  return { links, requests_per_minute: ws.requests_per_minute ?? d.requestsPerMinute };
}
