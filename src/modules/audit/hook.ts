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
import { recordByAuth, type AuditAction, type AuditTarget } from "./service.ts";

type Body = Record<string, unknown> | null;

/** What the hook reads of a request's context after its handler. */
export type AuditedContext = { request: Request; route: string; set: { status?: number | string }; response: unknown; params?: Record<string, string> };
type Rule = { action: AuditAction; target: (params: Record<string, string>, body: Body) => AuditTarget };

const WEBHOOK = "/api/v1/workspaces/:workspace_uuid/webhooks/:webhook_uuid/";
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
  "PATCH /api/v1/workspace/": { action: "workspace.updated", target: (_p, b) => ({ type: "workspace", uuid: str(b?.uuid), label: str(b?.name) }) },
};

/**
 * The `onAfterHandle` hook that records audited actions.
 * @returns a hook reading `request`, `route`, `params`, `set` and the handler's `response`
 */
export function auditAfterHandle(db: Kysely<Database>, log: Logger) {
  return async (ctx: AuditedContext): Promise<void> => {
    const rule = AUDITED_ROUTES[`${ctx.request.method.toUpperCase()} ${ctx.route}`];
    if (!rule) return;
    const status = Number(ctx.set.status ?? 200);
    const auth = authOfRequest.get(ctx.request);
    if (!auth || !(status >= 200 && status < 300)) return;
    const body = ctx.response && typeof ctx.response === "object" && !(ctx.response instanceof Response) ? (ctx.response as Body) : null;
    try {
      await recordByAuth(db, auth, rule.action, rule.target(ctx.params ?? {}, body));
    } catch (err) {
      log.error("could not write an audit entry", { action: rule.action, error: err instanceof Error ? err.message : String(err) });
    }
  };
}
