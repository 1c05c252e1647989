/**
 * @module commands/backup
 * `earshot backup FILE [--verify]` and `earshot restore FILE --data DIR` (DESIGN §2, §14;
 * docs/operations.md "Backup and restore"). The work is in backup-archive.ts (write),
 * backup-read.ts (read and check) and backup-restore.ts; they, tar-stream and cli-progress are
 * loaded when one of these commands runs, not at every start of the binary. A bar is drawn on
 * stderr only when it is a terminal; stdout gets one summary line.
 */
import type { Command } from "commander";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { engineNamedBy } from "../db/engine.ts";
import type { Manifest } from "./backup-manifest.ts";

type WithDb = <T>(fn: (db: Db, cfg: Config) => Promise<T>) => Promise<T>;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** A byte progress bar on stderr when it is a terminal; a no-op otherwise. */
async function progressBar(label: string): Promise<{ update(done: number, total: number): void; stop(): void }> {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const { Presets, SingleBar } = await import("cli-progress");
  const bar = new SingleBar(
    { format: `  ${label} [{bar}] {percentage}% {done}/{size}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) bar.start(total, 0, { done: mb(0), size: mb(total) });
      started = true;
      bar.setTotal(total);
      bar.update(done, { done: mb(done), size: mb(total) });
    },
    stop: () => bar.stop(),
  };
}

const describe = (m: Manifest) =>
  `${m.counts.responses} responses, ${m.counts.answers} answers, ${m.blobs.count} recordings and files (${mb(m.blobs.bytes)}), Earshot ${m.earshot_version}`;

/**
 * Adds `backup` and `restore` to the program.
 * @param config the configuration with the program's global flags (`--data`, `--database-url`)
 * @param withDb opens the configured database, migrated, for the duration of a callback
 */
export function registerBackupCommands(program: Command, config: () => Config, withDb: WithDb): void {
  program
    .command("backup <file>")
    .description("write one archive of the appliance to FILE: database snapshot + every recording and file it references + manifest.json")
    .option("--verify", "check the archive FILE (every SHA-256, the counts, the database) without restoring it")
    .action(async (file: string, o: { verify?: boolean }) => {
      if (o.verify) {
        const { verifyBackup } = await import("./backup-restore.ts");
        const bar = await progressBar("verifying");
        const manifest = await verifyBackup(file, (read, total) => bar.update(read, total)).finally(() => bar.stop());
        process.stdout.write(`${file} is a sound Earshot backup: ${describe(manifest)}.\n`);
        return;
      }
      const target = config();
      if (!engineNamedBy(target.databaseUrl ?? target.dbFile).singleFile) throw new Error((await import("../db/backup.ts")).POSTGRES_BACKUP_ADVICE);
      const { writeBackup } = await import("./backup-archive.ts");
      const bar = await progressBar("backup");
      const report = await withDb((db, cfg) =>
        writeBackup(db, cfg.blobsDir, file, (p) => {
          if (p.phase === "copy") bar.update(p.bytes, p.total);
        }),
      ).finally(() => bar.stop());
      const erased = report.manifest.erased_during_backup.length;
      process.stdout.write(
        `Backup written to ${report.file} (${mb(report.archiveBytes)}): ${describe(report.manifest)}.` +
          (erased ? ` ${erased} blob(s) erased while it ran are left out (manifest: erased_during_backup).` : "") +
          "\n",
      );
    });

  program
    .command("restore <file>")
    .description("restore a backup archive into an empty data directory (--data DIR), after checking it against its manifest")
    .action(async (file: string) => {
      const { restoreBackup } = await import("./backup-restore.ts");
      const cfg = config();
      if (!engineNamedBy(cfg.databaseUrl ?? cfg.dbFile).singleFile)
        throw new Error("earshot restore restores an appliance's SQLite data directory; on PostgreSQL use pg_restore (docs/operations.md).");
      const bar = await progressBar("restore");
      const manifest = await restoreBackup(file, cfg.dataDir, (read, total) => bar.update(read, total)).finally(() => bar.stop());
      process.stdout.write(`Restored into ${cfg.dataDir}: ${describe(manifest)}. Start it with: earshot serve --data ${cfg.dataDir}\n`);
    });
}
