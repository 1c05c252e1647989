#!/usr/bin/env bun
/**
 * @module cli
 * The `earshot` command (DESIGN §2 — a contract: operators and tests rely on its commands, flags
 * and JSON shapes). Every command honours `--data` / `EARSHOT_DATA_DIR` and `--database-url` /
 * `EARSHOT_DATABASE_URL` (PostgreSQL instead of the SQLite file, DESIGN §11).
 */
import "./runtime/preload.ts";
import { Command, InvalidArgumentError } from "commander";
import { EARSHOT_VERSION, loadConfig, type Config, type ConfigOverrides } from "./config.ts";
import { migrateToLatest, openDatabase, type Db } from "./db/client.ts";
import { isDatabaseUrl } from "./db/engine.ts";
import { AppError } from "./errors.ts";
import { ALL_SCOPES, KEY_SCOPES, type AnyScope } from "./auth/keys.ts";
import { PLANS, type Plan } from "./auth/plans.ts";
import { listWorkspaces } from "./modules/workspaces/repository.ts";
import { createWorkspace, workspaceHost } from "./modules/workspaces/service.ts";
import { createToken, listTokens, revokeTokenAnyWorkspace } from "./modules/tokens/service.ts";
import { findWorkspaceByUuid } from "./modules/workspaces/repository.ts";
import { startServer } from "./server.ts";
import { registerInferenceCommands } from "./commands/inference.ts";
import { registerModelsCommands } from "./commands/models.ts";
import { registerAccountCommands } from "./commands/accounts.ts";
import { registerInsightsCommands } from "./commands/insights.ts";
import { registerReprocessCommand } from "./commands/reprocess.ts";
import { registerMigrateToPostgresCommand } from "./commands/migrate-to-postgres.ts";
import { registerBackupCommands } from "./commands/backup.ts";
import { registerThemesCommand } from "./commands/themes.ts";
import { registerOperationsCommands } from "./commands/operations.ts";

const program = new Command("earshot")
  .description("Self-hosted voice and text feedback links with local transcription.")
  .option("--data <dir>", "data directory (EARSHOT_DATA_DIR, default ./data)")
  .option("--database-url <url>", "PostgreSQL instead of the SQLite file: postgres://user:pass@host:port/db (EARSHOT_DATABASE_URL)", (v: string) => {
    if (!isDatabaseUrl(v)) throw new InvalidArgumentError("a postgres:// or postgresql:// URL");
    return v;
  })
  .version(EARSHOT_VERSION, "-V, --version", "print the version")
  .showHelpAfterError();

function config(extra: ConfigOverrides = {}): Config {
  const { data, databaseUrl } = program.opts<{ data?: string; databaseUrl?: string }>();
  return loadConfig(process.env, { ...(data ? { dataDir: data } : {}), ...(databaseUrl ? { databaseUrl } : {}), ...extra });
}

async function withDb<T>(fn: (db: Db, cfg: Config) => Promise<T>): Promise<T> {
  const cfg = config();
  const db = openDatabase(cfg.databaseUrl ?? cfg.dbFile, { synchronous: cfg.sqliteSynchronous });
  try {
    await migrateToLatest(db);
    return await fn(db, cfg);
  } finally {
    await db.destroy();
  }
}

const print = (json: boolean, obj: unknown, text: string) => process.stdout.write(json ? JSON.stringify(obj) + "\n" : text + "\n");
const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("a port from 0 to 65535");
  return n;
};

const ROLES = ["all", "api", "worker"] as const;
const role = (v: string) => {
  if (!(ROLES as readonly string[]).includes(v)) throw new InvalidArgumentError(`one of ${ROLES.join(", ")}`);
  return v as Config["role"];
};

program
  .command("serve")
  .description("serve the API, the intake page and the console")
  .option("--port <port>", "port (EARSHOT_PORT, default 8080)", port)
  .option("--host <host>", "address to bind (default 0.0.0.0)")
  .option("--role <role>", "all | api | worker (EARSHOT_ROLE, default all): api runs no jobs or deliveries; worker runs only them and serves /healthz", role)
  .action(async (o: { port?: number; host?: string; role?: Config["role"] }) => {
    const server = await startServer(
      config({ ...(o.port !== undefined ? { port: o.port } : {}), ...(o.host ? { host: o.host } : {}), ...(o.role ? { role: o.role } : {}) }),
    );
    const stop = async (signal: NodeJS.Signals) => {
      await server.stop(signal);
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });

const workspace = program.command("workspace").description("manage workspaces");
workspace
  .command("create")
  .requiredOption("--name <name>", "workspace name")
  .option("--plan <plan>", "free | pro | enterprise", "free")
  .option("--slug <slug>", "URL slug (default: from the name)")
  .option("--host <origin>", "dedicated origin serving this workspace's links at /i/<slug>, e.g. https://feedback.acme.lan")
  .option("--json", "print one JSON object")
  .action(async (o: { name: string; plan: string; slug?: string; host?: string; json?: boolean }) => {
    if (!PLANS.includes(o.plan as Plan)) throw new InvalidArgumentError(`--plan must be one of ${PLANS.join(", ")}`);
    const created = await withDb((db, cfg) =>
      createWorkspace(db, { name: o.name, plan: o.plan as Plan, slug: o.slug, host: o.host, publicUrl: cfg.publicUrl }),
    );
    print(!!o.json, created, `Workspace ${created.workspace_slug} (${created.workspace_uuid})\nAPI key (shown once): ${created.api_key}`);
  });
workspace
  .command("list")
  .option("--json", "print JSON")
  .action(async (o: { json?: boolean }) => {
    await withDb(async (db, cfg) => {
      const rows = (await listWorkspaces(db)).map((w) => ({
        uuid: w.uuid,
        name: w.name,
        slug: w.slug,
        plan: w.plan,
        host: workspaceHost(cfg.publicUrl, w),
        date_created: w.date_created,
      }));
      print(!!o.json, rows, rows.map((w) => `${w.uuid}  ${w.slug}  ${w.plan}  ${w.name}`).join("\n") || "No workspaces.");
    });
  });

const token = program.command("token").description("manage API tokens");
token
  .command("create")
  .requiredOption("--workspace <uuid>", "workspace uuid")
  .requiredOption("--name <name>", "token name")
  .option("--scopes <list>", `comma-separated scopes (default: ${ALL_SCOPES.join(",")}; also ${KEY_SCOPES.slice(ALL_SCOPES.length).join(",")})`)
  .option("--json", "print one JSON object")
  .action(async (o: { workspace: string; name: string; scopes?: string; json?: boolean }) => {
    const scopes = o.scopes
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = scopes?.filter((s) => !KEY_SCOPES.includes(s as AnyScope));
    if (bad?.length) throw new InvalidArgumentError(`unknown scopes: ${bad.join(", ")}`);
    const created = await withDb(async (db) => {
      if (!(await findWorkspaceByUuid(db, o.workspace))) throw new AppError("NOT_FOUND", `No workspace ${o.workspace}.`);
      return createToken(db, o.workspace, { name: o.name, scopes: scopes as AnyScope[] | undefined });
    });
    print(!!o.json, created, `Token ${created.uuid}\nAPI key (shown once): ${created.key}`);
  });
token
  .command("list")
  .requiredOption("--workspace <uuid>", "workspace uuid")
  .option("--json", "print JSON")
  .action(async (o: { workspace: string; json?: boolean }) => {
    const { results } = await withDb((db) => listTokens(db, o.workspace, 1000, 0));
    print(
      !!o.json,
      results,
      results.map((t) => `${t.uuid}  ${t.masked_key}  ${t.name}  last used ${t.last_used_at ?? "never"}`).join("\n") || "No active tokens.",
    );
  });
token.command("revoke <token_uuid>").action(async (uuid: string) => {
  const ok = await withDb((db) => revokeTokenAnyWorkspace(db, uuid));
  if (!ok) throw new AppError("NOT_FOUND", `No active token ${uuid}.`);
  process.stdout.write(`Token ${uuid} revoked.\n`);
});

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(async () => {
    const applied = await withDb(async (db) => (await migrateToLatest(db)).results ?? []);
    process.stdout.write(applied.length ? applied.map((r) => `${r.status}: ${r.migrationName}`).join("\n") + "\n" : "Database is up to date.\n");
  });

registerOperationsCommands(program, { config: () => config(), withDb });
registerModelsCommands(program, () => config());
registerAccountCommands(program, workspace, withDb);
registerInferenceCommands(program, () => config());
registerInsightsCommands(program, withDb);
registerReprocessCommand(program, withDb);
registerMigrateToPostgresCommand(program, () => config());
registerBackupCommands(program, () => config(), withDb);
registerThemesCommand(program, () => config());

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`earshot: ${message}\n`);
  process.exit(err instanceof AppError && err.code !== "INTERNAL" ? 1 : 2);
}
