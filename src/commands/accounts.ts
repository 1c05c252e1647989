/**
 * @module commands/accounts
 * `earshot workspace update` and `earshot user create|list|reset-password` (DESIGN §2, exact), and
 * `earshot user reset-two-factor` (issue 28; docs/console.md "Two-factor authentication").
 */
import { InvalidArgumentError, type Command } from "commander";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { isRole, ROLES, type Role } from "../auth/roles.ts";
import { PLANS, type Plan } from "../auth/plans.ts";
import { findWorkspaceByUuid } from "../modules/workspaces/repository.ts";
import { getWorkspaceView, updateWorkspace } from "../modules/workspaces/service.ts";
import { recordAudit } from "../modules/audit/service.ts";
import { createUser, listUsers, passwordResetUrl } from "../modules/users/admin.ts";
import { resetTwoFactor } from "../modules/two-factor/admin.ts";
import { mailLanguageOf } from "../mail/catalog.ts";

type WithDb = <T>(fn: (db: Db, cfg: Config) => Promise<T>) => Promise<T>;

const positive = (what: string) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`${what} must be a positive whole number`);
  return Number(v);
};

async function readStdin(): Promise<string> {
  const text = await new Response(Bun.stdin.stream()).text();
  return text.replace(/\r?\n$/, "");
}

/** Adds `workspace update` to the `workspace` command and the `user` command to the program. */
export function registerAccountCommands(program: Command, workspace: Command, withDb: WithDb): void {
  workspace
    .command("update <uuid>")
    .description("change a workspace's plan and limits")
    .option("--plan <plan>", "free | pro | enterprise")
    .option("--links-limit <n>", "links allowed (a number, or unlimited)", (v: string) => {
      if (v !== "unlimited" && !/^\d+$/.test(v)) throw new InvalidArgumentError("a number or unlimited");
      return v;
    })
    .option("--requests-per-minute <n>", "API requests per minute per key", positive("--requests-per-minute"))
    .action(async (uuid: string, o: { plan?: string; linksLimit?: string; requestsPerMinute?: number }) => {
      const linksLimit = o.linksLimit === undefined ? undefined : o.linksLimit === "unlimited" ? null : Number(o.linksLimit);
      if (o.plan !== undefined && !PLANS.includes(o.plan as Plan)) throw new InvalidArgumentError(`--plan must be one of ${PLANS.join(", ")}`);
      const view = await withDb(async (db, cfg) => {
        await updateWorkspace(db, uuid, { plan: o.plan as Plan | undefined, linksLimit, requestsPerMinute: o.requestsPerMinute });
        const ws = (await findWorkspaceByUuid(db, uuid))!;
        await recordAudit(db, {
          workspaceUuid: uuid,
          actor: { type: "system", uuid: null, name: "earshot CLI" },
          action: "workspace.updated",
          target: { type: "workspace", uuid, label: ws.name },
          clientAddress: null,
        });
        return getWorkspaceView(db, cfg.publicUrl, uuid);
      });
      process.stdout.write(
        `Workspace ${view.slug} (${view.uuid}): plan ${view.plan}, links ${view.limits.links ?? "unlimited"}, ${view.limits.requests_per_minute} requests/min per key\n`,
      );
    });

  const user = program.command("user").description("manage console accounts");
  user
    .command("create")
    .requiredOption("--email <email>", "the account's email (unique, case-insensitive)")
    .option("--name <name>", "display name (default: the email's local part)")
    .option("--workspace <uuid>", "workspace (default: the only one)")
    .option("--role <role>", `${ROLES.join(" | ")} (default: owner when the workspace has none, else member)`)
    .option("--password-stdin", "read the password (≥ 12 characters) from standard input; without it a reset URL is printed")
    .option("--json", "print one JSON object")
    .action(async (o: { email: string; name?: string; workspace?: string; role?: string; passwordStdin?: boolean; json?: boolean }) => {
      if (o.role !== undefined && !isRole(o.role)) throw new InvalidArgumentError(`--role must be one of ${ROLES.join(", ")}`);
      const password = o.passwordStdin ? await readStdin() : undefined;
      const created = await withDb((db, cfg) =>
        createUser(db, cfg.publicUrl, { email: o.email, name: o.name, workspaceUuid: o.workspace, role: o.role as Role | undefined, password }),
      );
      const lines = [`User ${created.email} (${created.uuid}) is ${created.role} of workspace ${created.workspace_uuid}.`];
      if (created.reset_url) lines.push(`Set the password here (single use, 24 hours): ${created.reset_url}`);
      process.stdout.write(o.json ? JSON.stringify(created) + "\n" : lines.join("\n") + "\n");
    });
  user
    .command("list")
    .option("--json", "print JSON")
    .action(async (o: { json?: boolean }) => {
      const users = await withDb((db) => listUsers(db));
      const text = users
        .map(
          (u) => `${u.uuid}  ${u.email}  ${u.name}${u.disabled ? "  (disabled)" : ""}  ${u.memberships.map((m) => `${m.role}@${m.workspace_uuid}`).join(" ")}`,
        )
        .join("\n");
      process.stdout.write(o.json ? JSON.stringify(users) + "\n" : (text || "No users.") + "\n");
    });
  user
    .command("reset-password")
    .requiredOption("--email <email>", "the account's email")
    .option("--language <tag>", "the language of the mail, when mail is configured (en, de, fr, es, it, nl, pt, pl, ar)", "en")
    .description("print a one-time password-reset URL (24 hours); with EARSHOT_SMTP_URL set, also mail it to the account")
    .action(async (o: { email: string; language: string }) => {
      const lang = mailLanguageOf(o.language) ?? "en";
      const { url, mailed } = await withDb(async (db, cfg) => ({
        url: await passwordResetUrl(db, cfg.publicUrl, o.email, { config: cfg, lang }),
        mailed: !!cfg.smtpUrl,
      }));
      process.stdout.write(`${url}\n`);
      if (mailed) process.stderr.write(`earshot: the reset is also mailed to ${o.email} (queued; the server sends it)\n`);
    });
  user
    .command("reset-two-factor")
    .requiredOption("--email <email>", "the account's email")
    .description("remove the account's two-factor authentication (lost phone and recovery codes)")
    .action(async (o: { email: string }) => {
      const done = await withDb((db) => resetTwoFactor(db, o.email));
      process.stdout.write(
        done.was_enabled
          ? `Two-factor authentication of ${done.email} is removed; they sign in with the password and can set it up again.\n`
          : `${done.email} had no two-factor authentication; nothing changed.\n`,
      );
    });
}
