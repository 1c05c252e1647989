/**
 * @module test/helpers/processing
 * Runs the real job runner with the real inference worker (fixture models) over a test API's
 * database, as `earshot serve` does.
 */
import path from "node:path";
import { createInferenceClient, type InferenceClient } from "../../src/ai/inference-client.ts";
import { createJobRunner, type JobRunner } from "../../src/jobs/runner.ts";
import { createLogger } from "../../src/logger.ts";
import { analyseAnswer, giveUpOnAnswer, transcribeAnswer } from "../../src/modules/responses/processing.ts";
import { processingDepsOf } from "../../src/app-deps.ts";
import { rebuildThemes } from "../../src/modules/themes/engine.ts";
import { giveUpOnMail, sendMailJob } from "../../src/modules/mail/service.ts";
import { createMailer } from "../../src/mail/transport.ts";
import type { TestApi } from "./api.ts";

import { FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, HEARING_ASR_MODEL, HEARING_MODELS_DIR } from "./fixtures.ts";

export { FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT };

/** {@link ProcessingOptions} for the hearing Whisper fixture: transcripts are the words spoken. */
export const HEARING = { modelsDir: HEARING_MODELS_DIR, asrModel: HEARING_ASR_MODEL } as const;

/**
 * Options of {@link createProcessing}: another models directory, Whisper model id and themes
 * engine choice (`EARSHOT_EMBEDDING_MODEL`), and the runner's resume check.
 */
export type ProcessingOptions = {
  modelsDir?: string;
  asrModel?: string;
  embeddingModel?: string;
  resume?: Parameters<typeof createJobRunner>[0]["resume"];
  /** The mail handler's log (default silent). */
  log?: import("../../src/logger.ts").Logger;
};

/**
 * The real job runner and inference worker over `api`'s database, wired as `earshot serve` wires
 * them, not started (a test may start and stop the runner itself); `stop()` stops both.
 */
export async function createProcessing(
  api: TestApi,
  opts: ProcessingOptions = {},
): Promise<{ runner: JobRunner; inference: InferenceClient; stop(): Promise<void> }> {
  const inference = createInferenceClient({
    modelsDir: opts.modelsDir ?? FIXTURE_MODELS_DIR,
    asrModel: opts.asrModel ?? "whisper-tiny-random",
    sentimentModel: "tiny-sentiment-3class",
    ...(opts.embeddingModel ? { embeddingModel: opts.embeddingModel } : {}),
  });
  let runner: JobRunner | null = null;
  // As src/server.ts wires them, over the test app's database, blob store and signing secret.
  const deps = processingDepsOf({ ...api.deps, inference, nudgeJobs: () => runner?.nudge(), nudgeOutbox: () => {} });
  const c = api.deps.config;
  const mailer = c.smtpUrl && c.mailFrom ? createMailer({ smtpUrl: c.smtpUrl, mailFrom: c.mailFrom, smtpCaFile: c.smtpCaFile }) : null;
  const mailDeps = { db: api.db, mailer, log: opts.log ?? createLogger("silent") };
  runner = createJobRunner({
    db: api.db,
    log: createLogger("silent"),
    pollMs: 50,
    handlers: {
      transcribe: (j) => transcribeAnswer(deps, j),
      analyse: (j) => analyseAnswer(deps, j),
      themes: (j) => rebuildThemes(deps, j),
      mail: (j) => sendMailJob(mailDeps, j),
    },
    onGiveUp: (j, e) => (j.kind === "mail" ? giveUpOnMail(mailDeps, j, e) : giveUpOnAnswer(deps, j, e)),
    ...(opts.resume ? { resume: opts.resume } : {}),
  });
  return {
    runner,
    inference,
    async stop() {
      await runner!.stop();
      await inference.close();
    },
  };
}

/** Starts processing for `api` with the fixture models; call `stop()` when done. */
export async function startProcessing(
  api: TestApi,
  opts: ProcessingOptions = {},
): Promise<{ runner: JobRunner; inference: InferenceClient; stop(): Promise<void> }> {
  const processing = await createProcessing(api, opts);
  await processing.runner.start();
  return processing;
}

/** Polls `fn` every 100 ms until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}
