/**
 * @module audit/hook
 * Central audit recording for the API modules that do not write their own entries: after a
 * successful state-changing `/api/v1/` request, the route pattern and method name the action, the
 * auth context names the actor, and the path parameters or the response body name the target.
 * Written after the handler's own transaction (best effort: a failure is logged, the answer stands).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Logger } from "../../logger.ts";
import { authOfRequest } from "../../http/context.ts";
import { matchRoute, routePattern } from "../../http/route-pattern.ts";
import { recordByAuth, type AuditAction, type AuditTarget } from "./service.ts";

type Body = Record<string, unknown> | null;

/** What the hook reads of a request's context after its handler. */
export type AuditedContext = { request: Request; response: unknown };
type Rule = { action: AuditAction; target: (params: Record<string, string>, body: Body) => AuditTarget };

const WEBHOOK = "/api/v1/workspaces/:workspace_uuid/webhooks/:webhook_uuid/";
const THEMES = "/api/v1/links/:link_uuid/themes/";
const THEME = `${THEMES}:theme_uuid/`;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** `METHOD route-pattern` → what to record. */
export const AUDITED_ROUTES: Record<string, Rule> = {
  "POST /api/v1/links/": { action: "link.created", target: (_p, b) => ({ type: "link", uuid: str(b?.uuid), label: str(b?.name) }) },
  "PATCH /api/v1/links/:link_uuid/": { action: "link.updated", target: (p, b) => ({ type: "link", uuid: p.link_uuid ?? null, label: str(b?.name) }) },
  "DELETE /api/v1/links/:link_uuid/": { action: "link.deleted", target: (p) => ({ type: "link", uuid: p.link_uuid ?? null, label: null }) },
  "POST /api/v1/tokens/": { action: "token.created", target: (_p, b) => ({ type: "token", uuid: str(b?.uuid), label: str(b?.name) }) },
  "DELETE /api/v1/tokens/:token_uuid/": { action: "token.revoked", target: (p) => ({ type: "token", uuid: p.token_uuid ?? null, label: null }) },
  "POST /api/v1/workspaces/:workspace_uuid/webhooks/": {
    action: "webhook.created",
    target: (_p, b) => ({ type: "webhook", uuid: str(b?.uuid), label: str(b?.url) }),
  },
  [`PATCH ${WEBHOOK}`]: { action: "webhook.updated", target: (p, b) => ({ type: "webhook", uuid: p.webhook_uuid ?? null, label: str(b?.url) }) },
  [`DELETE ${WEBHOOK}`]: { action: "webhook.deleted", target: (p) => ({ type: "webhook", uuid: p.webhook_uuid ?? null, label: null }) },
  [`POST ${WEBHOOK}rotate-secret/`]: { action: "webhook.secret_rotated", target: (p) => ({ type: "webhook", uuid: p.webhook_uuid ?? null, label: null }) },
  "DELETE /api/v1/responses/:response_uuid/": { action: "response.erased", target: (p) => ({ type: "response", uuid: p.response_uuid ?? null, label: null }) },
  [`POST ${THEMES}`]: { action: "theme.created", target: (_p, b) => ({ type: "theme", uuid: str(b?.uuid), label: str(b?.label) }) },
  [`PATCH ${THEME}`]: { action: "theme.updated", target: (p, b) => ({ type: "theme", uuid: p.theme_uuid ?? null, label: str(b?.label) }) },
  // The merged theme is the target; the survivor's label says where its answers went.
  [`POST ${THEME}merge/`]: { action: "theme.merged", target: (p, b) => ({ type: "theme", uuid: p.theme_uuid ?? null, label: str(b?.label) }) },
  [`DELETE ${THEME}`]: { action: "theme.deleted", target: (p) => ({ type: "theme", uuid: p.theme_uuid ?? null, label: null }) },
  [`POST ${THEMES}rebuild/`]: { action: "themes.rebuild_requested", target: (p) => ({ type: "link", uuid: p.link_uuid ?? null, label: null }) },
  // Insights corrections and answers moved between themes (PATCH …/insights/ with theme_uuid).
  "PATCH /api/v1/responses/:response_uuid/answers/:answer_uuid/insights/": {
    action: "answer.corrected",
    target: (p) => ({ type: "answer", uuid: p.answer_uuid ?? null, label: null }),
  },
  // Invitations (DESIGN §13): one entry per minting request, naming the link and how many.
  "POST /api/v1/links/:link_uuid/invitations/": {
    action: "invitations.created",
    target: (p, b) => ({ type: "link", uuid: p.link_uuid ?? null, label: typeof b?.count === "number" ? `${b.count} invitations` : null }),
  },
  // Alert rules (issue 28; alerts/routes.ts).
  "POST /api/v1/links/:link_uuid/alerts/": { action: "alert.created", target: (_p, b) => ({ type: "alert", uuid: str(b?.uuid), label: str(b?.name) }) },
  "PATCH /api/v1/links/:link_uuid/alerts/:alert_uuid/": {
    action: "alert.updated",
    target: (p, b) => ({ type: "alert", uuid: p.alert_uuid ?? null, label: str(b?.name) }),
  },
  "DELETE /api/v1/links/:link_uuid/alerts/:alert_uuid/": {
    action: "alert.deleted",
    target: (p) => ({ type: "alert", uuid: p.alert_uuid ?? null, label: null }),
  },
  "DELETE /api/v1/links/:link_uuid/invitations/:invitation_uuid/": {
    action: "invitation.revoked",
    target: (p) => ({ type: "invitation", uuid: p.invitation_uuid ?? null, label: null }),
  },
  "PATCH /api/v1/workspace/": { action: "workspace.updated", target: (_p, b) => ({ type: "workspace", uuid: str(b?.uuid), label: str(b?.name) }) },
};

/** Each audited route as a method and a compiled path pattern. */
const MATCHERS = Object.entries(AUDITED_ROUTES).map(([key, rule]) => {
  const [method, route] = key.split(" ") as [string, string];
  return { method, pattern: routePattern(route), rule };
});

/** The audited rule and path parameters of a request, if its method and path are audited. */
function auditedRoute(request: Request): { rule: Rule; params: Record<string, string> } | null {
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "HEAD") return null;
  const path = new URL(request.url).pathname;
  for (const m of MATCHERS) {
    const params = m.method === method ? matchRoute(m.pattern, path) : null;
    if (params) return { rule: m.rule, params };
  }
  return null;
}

/**
 * The `onAfterHandle` hook that records audited actions (it runs only after a handler that did not
 * throw). It reads only the request and the handler's response — context parts Elysia always
 * passes — and finds the route from the request itself: `route`, `params` and `set` are filled
 * only when Elysia's source analysis sees a hook read them, which the compiled binary defeats.
 * @returns the hook
 */
export function auditAfterHandle(db: Kysely<Database>, log: Logger) {
  return async (ctx: AuditedContext): Promise<void> => {
    const found = auditedRoute(ctx.request);
    if (!found) return;
    const auth = authOfRequest.get(ctx.request);
    if (!auth) return;
    const body = ctx.response && typeof ctx.response === "object" && !(ctx.response instanceof Response) ? (ctx.response as Body) : null;
    try {
      await recordByAuth(db, auth, found.rule.action, found.rule.target(found.params, body));
    } catch (err) {
      log.error("could not write an audit entry", { action: found.rule.action, error: err instanceof Error ? err.message : String(err) });
    }
  };
}
