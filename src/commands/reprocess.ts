/**
 * @module commands/reprocess
 * `earshot reprocess [--failed] [--response UUID]` (DESIGN §2; issue 12): queues transcription and
 * analysis again. Without flags: every answer waiting for the ASR model (a running server also
 * resumes those by itself once the model is installed). `--failed`: failed ones too. `--response
 * UUID`: only that response's answers, failed or waiting. A running server picks the jobs up at
 * its next poll; an answer whose job is running is left alone.
 */
import type { Command } from "commander";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { AppError } from "../errors.ts";
import { findResponseByUuid } from "../modules/responses/repository.ts";
import { reprocessAnswers } from "../modules/responses/reprocess.ts";
import { isUuid } from "../shared/uuid.ts";

type WithDb = <T>(fn: (db: Db, cfg: Config) => Promise<T>) => Promise<T>;

/** Registers `reprocess` on the program. */
export function registerReprocessCommand(program: Command, withDb: WithDb): void {
  program
    .command("reprocess")
    .description("queue transcription/analysis again: answers waiting for the model; --failed adds failed ones")
    .option("--failed", "also answers whose transcription or analysis failed")
    .option("--response <uuid>", "only this response's answers (failed or waiting)")
    .action(async (o: { failed?: boolean; response?: string }) => {
      const queued = await withDb(async (db) => {
        if (o.response !== undefined && !(isUuid(o.response) && (await findResponseByUuid(db, o.response)))) {
          throw new AppError("NOT_FOUND", `No response ${o.response}.`);
        }
        return reprocessAnswers(db, { responseUuid: o.response, includeFailed: Boolean(o.failed) || o.response !== undefined });
      });
      const transcriptions = queued.filter((q) => q.job === "transcribe").length;
      process.stdout.write(
        queued.length
          ? `Queued ${queued.length} answer${queued.length === 1 ? "" : "s"} again (${transcriptions} transcription${transcriptions === 1 ? "" : "s"}, ${queued.length - transcriptions} analys${queued.length - transcriptions === 1 ? "is" : "es"}).\n`
          : "Nothing to reprocess.\n",
      );
    });
}
