/**
 * @module digests/service
 * A member's own digest preference (issue 28; docs/console.md "Email digests"), per workspace, on
 * the membership: read it, change it (audited as `member.digest_changed`, the label naming the
 * member and the new choice).
 */
import type { Kysely } from "kysely";
import type { SessionAuth } from "../../auth/authenticate.ts";
import type { DigestFrequency } from "../../auth/repository.ts";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import { notFound } from "../../errors.ts";
import { recordAudit } from "../audit/service.ts";
import { mailEnabled } from "../mail/service.ts";

type Deps = { db: Kysely<Database>; config: Pick<Config, "smtpUrl" | "mailFrom"> };
export type Notifications = { workspace_uuid: string; digest: DigestFrequency; mail_configured: boolean };

async function membershipOf(db: Kysely<Database>, s: SessionAuth) {
  const ws = s.session.workspace_uuid;
  const m = ws
    ? await db
        .selectFrom("memberships")
        .select(["workspace_uuid", "digest"])
        .where("user_uuid", "=", s.user.uuid)
        .where("workspace_uuid", "=", ws)
        .executeTakeFirst()
    : undefined;
  if (!m) throw notFound("Membership");
  return m;
}

/**
 * The signed-in member's preferences in the session's workspace.
 * @throws AppError NOT_FOUND when the session has no workspace
 */
export async function getNotifications(deps: Deps, s: SessionAuth): Promise<Notifications> {
  const m = await membershipOf(deps.db, s);
  return { workspace_uuid: m.workspace_uuid, digest: m.digest, mail_configured: mailEnabled(deps.config) };
}

/**
 * Sets the digest of the session's workspace and its language (`lang`: a mail catalog language,
 * from the request's Accept-Language); audits a change (not a repeat of the same choice).
 * @throws AppError NOT_FOUND when the session has no workspace
 */
export async function setNotifications(
  deps: Deps,
  s: SessionAuth,
  input: { digest: DigestFrequency; lang: string },
  clientAddress: string | null,
): Promise<Notifications> {
  const { digest } = input;
  const m = await membershipOf(deps.db, s);
  // The language follows the latest choice, even a repeated one (the member may have switched).
  await deps.db
    .updateTable("memberships")
    .set({ digest_lang: input.lang })
    .where("user_uuid", "=", s.user.uuid)
    .where("workspace_uuid", "=", m.workspace_uuid)
    .execute();
  if (m.digest !== digest) {
    await deps.db.transaction().execute(async (trx) => {
      await trx.updateTable("memberships").set({ digest }).where("user_uuid", "=", s.user.uuid).where("workspace_uuid", "=", m.workspace_uuid).execute();
      await recordAudit(trx, {
        workspaceUuid: m.workspace_uuid,
        actor: { type: "user", uuid: s.user.uuid, name: s.user.name },
        action: "member.digest_changed",
        target: { type: "user", uuid: s.user.uuid, label: `${s.user.email}: ${digest}` },
        clientAddress,
      });
    });
  }
  return { workspace_uuid: m.workspace_uuid, digest, mail_configured: mailEnabled(deps.config) };
}
