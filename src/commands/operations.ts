/**
 * @module commands/operations
 * `earshot version`, `earshot setup-url` and `earshot healthcheck [--url URL]` (DESIGN §2, §14).
 * (`--version` / `-V` are commander's own flags on the program, set in cli.ts.)
 */
import type { Command } from "commander";
import { EARSHOT_VERSION, type Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { freshSetupUrl } from "../modules/users/admin.ts";

/** How long `healthcheck` waits for the answer. */
const HEALTHCHECK_TIMEOUT_MS = 5000;

/**
 * The readiness URL `healthcheck` asks: `--url` (a base URL gets `/healthz/ready`), else this
 * machine's own server on the configured port (loopback when it binds every address).
 */
export function readinessUrl(cfg: Config, url: string | undefined): string {
  if (url) {
    const u = new URL(url);
    if (u.pathname === "/" || u.pathname === "") u.pathname = "/healthz/ready";
    return u.toString();
  }
  const host = cfg.host === "0.0.0.0" || cfg.host === "::" ? "127.0.0.1" : cfg.host.includes(":") ? `[${cfg.host}]` : cfg.host;
  return `${cfg.tlsCert ? "https" : "http"}://${host}:${cfg.port}/healthz/ready`;
}

/** Registers the commands. */
export function registerOperationsCommands(
  program: Command,
  ctx: { config: () => Config; withDb: <T>(fn: (db: Db, cfg: Config) => Promise<T>) => Promise<T> },
): void {
  program
    .command("version")
    .description("print the version")
    .action(() => {
      process.stdout.write(`${EARSHOT_VERSION}\n`);
    });

  program
    .command("setup-url")
    .description("print a fresh one-time console setup URL while no owner account exists (earlier ones stop working)")
    .action(async () => {
      const url = await ctx.withDb((db, cfg) => freshSetupUrl(db, cfg.publicUrl));
      if (!url) {
        process.stderr.write("earshot: the console has an owner already; an owner can invite others, or use: earshot user reset-password --email EMAIL\n");
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`${url}\n`);
    });

  program
    .command("healthcheck")
    .description("exit 0 when the server is ready (GET /healthz/ready answers 200), else 1; for a container HEALTHCHECK")
    .option("--url <url>", "the server's base URL or readiness URL (default: this machine's server on EARSHOT_PORT)")
    .action(async (o: { url?: string }) => {
      const cfg = ctx.config();
      const target = readinessUrl(cfg, o.url);
      try {
        // Our own server on loopback may use a certificate issued for its public name.
        const res = await fetch(target, { signal: AbortSignal.timeout(HEALTHCHECK_TIMEOUT_MS), ...(o.url ? {} : { tls: { rejectUnauthorized: false } }) });
        const body = await res.text();
        if (res.status === 200) {
          process.stdout.write("ready\n");
          return;
        }
        process.stderr.write(`earshot: not ready (${res.status}): ${body.slice(0, 500)}\n`);
      } catch (err) {
        process.stderr.write(`earshot: ${target} did not answer: ${err instanceof Error ? err.message : String(err)}\n`);
      }
      process.exitCode = 1;
    });
}
