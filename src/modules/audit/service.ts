/**
 * @module audit/service
 * The audit log (DESIGN §10; console contract): who did what to which thing, when and from where.
 * Entries are written by the console's own services and, for the other API modules, by the
 * central hook in `audit/hook.ts`.
 */
import { z } from "zod";
import { nowIso } from "../../clock.ts";
import type { Executor } from "../../db/schema.ts";
import type { Actor, AuthContext } from "../../auth/authenticate.ts";
import * as repo from "./repository.ts";

/** Every action the log records. */
export const AUDIT_ACTIONS = [
  "link.created",
  "link.updated",
  "link.deleted",
  "token.created",
  "token.revoked",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "response.erased",
  "retention.applied",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "workspace.updated",
  "theme.created",
  "theme.updated",
  "theme.merged",
  "theme.deleted",
  "themes.rebuild_requested",
  "answer.corrected",
  "login.succeeded",
  "login.failed",
  "password.changed",
  // Two-factor authentication (modules/two-factor; issue 28).
  "two_factor.enabled",
  "two_factor.disabled",
  "two_factor.recovery_code_used",
  "two_factor.recovery_codes_regenerated",
  "two_factor.code_failed",
  "workspace.two_factor_required",
  "workspace.two_factor_not_required",
  // A workspace's own single sign-on (modules/oidc): its settings saved or removed by an owner, and
  // an identity `(issuer, sub)` bound to an account at its first sign-in (the label names both).
  "sso.updated",
  "sso.removed",
  "sso.identity_linked",
  "invitations.created",
  "invitation.revoked",
  // The "Send test email" button (modules/mail): the label names the recipient (and the SMTP error).
  "mail.test_sent",
  "mail.test_failed",
  "alert.created",
  "alert.updated",
  "alert.deleted",
  // A member chose their email digest of the workspace (modules/digests): the label names them and the choice.
  "member.digest_changed",
  // Every MCP tools/call (modules/mcp/server.ts): answered, or refused (the label names the code).
  "mcp.tool_called",
  "mcp.tool_refused",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditTarget = { type: string; uuid: string | null; label: string | null };
export type AuditActor = { type: "user" | "key" | "system"; uuid: string | null; name: string };

/** One entry as the API returns it. */
export const auditEntrySchema = z.object({
  uuid: z.string().uuid(),
  time: z.string(),
  actor: z.object({ type: z.enum(["user", "key", "system"]), uuid: z.string().nullable(), name: z.string() }),
  action: z.string(),
  target: z.object({ type: z.string(), uuid: z.string().nullable(), label: z.string().nullable() }).nullable(),
  client_address: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

const isoTime = z.string().regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?Z?)?$/, "Use an API timestamp such as 2026-11-25T10:00:00.000000Z.");
/** `GET audit/` filters (besides page and page_size). */
export const auditQuerySchema = z.object({
  action: z.string().max(100).optional().describe("An action (`link.created`) or a prefix ending in a dot (`webhook.`)"),
  actor: z.string().max(200).optional().describe("The actor's uuid or name"),
  since: isoTime.optional().describe("Entries at or after this time"),
  until: isoTime.optional().describe("Entries before this time"),
});

/**
 * Appends an entry (inside the caller's transaction when the action is part of one).
 * @param workspaceUuid null for events outside any workspace
 */
export async function recordAudit(
  db: Executor,
  entry: { workspaceUuid: string | null; actor: AuditActor; action: AuditAction; target: AuditTarget | null; clientAddress: string | null },
): Promise<void> {
  await repo.insertAudit(db, {
    uuid: crypto.randomUUID(),
    workspace_uuid: entry.workspaceUuid,
    time: nowIso(),
    actor_type: entry.actor.type,
    actor_uuid: entry.actor.uuid,
    actor_name: entry.actor.name,
    action: entry.action,
    target_type: entry.target?.type ?? null,
    target_uuid: entry.target?.uuid ?? null,
    target_label: entry.target?.label ?? null,
    client_address: entry.clientAddress,
  });
}

/** Records an action taken by an authenticated caller in its workspace. */
export function recordByAuth(db: Executor, auth: AuthContext, action: AuditAction, target: AuditTarget | null): Promise<void> {
  return recordAudit(db, { workspaceUuid: auth.workspaceUuid, actor: actorOf(auth.actor), action, target, clientAddress: auth.clientAddress });
}

/** The audit actor of an authenticated caller. */
export function actorOf(actor: Actor): AuditActor {
  return { type: actor.type, uuid: actor.uuid, name: actor.name };
}

function toEntry(row: repo.AuditRow): AuditEntry {
  return {
    uuid: row.uuid,
    time: row.time,
    actor: { type: row.actor_type, uuid: row.actor_uuid, name: row.actor_name },
    action: row.action,
    target: row.target_type ? { type: row.target_type, uuid: row.target_uuid, label: row.target_label } : null,
    client_address: row.client_address,
  };
}

/** Completes a partial timestamp filter (`2026-11-25` → `2026-11-25T00:00:00.000000Z`) so it compares lexically. */
function normaliseTime(t: string | undefined): string | undefined {
  if (!t) return undefined;
  const base = t.endsWith("Z") ? t.slice(0, -1) : t;
  const [date, time = "00:00:00"] = base.split("T");
  const [hms, frac = ""] = time.split(".");
  const full = hms!.length === 5 ? `${hms}:00` : hms;
  return `${date}T${full}.${frac.padEnd(6, "0")}Z`;
}

/** One page of a workspace's audit log, newest first, with its total. */
export async function listAuditEntries(db: Executor, workspaceUuid: string, q: z.output<typeof auditQuerySchema>, limit: number, offset: number) {
  const filter: repo.AuditFilter = { workspaceUuid, actor: q.actor, since: normaliseTime(q.since), until: normaliseTime(q.until) };
  if (q.action?.endsWith(".")) filter.actionPrefix = q.action;
  else if (q.action) filter.action = q.action;
  const [rows, count] = await Promise.all([repo.listAudit(db, filter, limit, offset), repo.countAudit(db, filter)]);
  return { count, results: rows.map(toEntry) };
}
