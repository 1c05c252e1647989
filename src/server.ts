/**
 * @module server
 * Composition root of `earshot serve` (STYLE: config → db → migrate → worker → job runner →
 * listen; graceful stop). Also creates the default workspace on first start and prints its key.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import { migrateToLatest, openDatabase } from "./db/client.ts";
import type { Database } from "./db/schema.ts";
import { createLogger, type Logger } from "./logger.ts";
import { isModelInstalled } from "./modules/health/routes.ts";
import { createApp } from "./app.ts";
import type { AppDeps } from "./http/context.ts";
import { createLocalBlobStore } from "./blobs/store.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { createRateLimiter } from "./auth/rate-limit.ts";
import { createUsageRecorder } from "./auth/usage.ts";
import { loadWebAssets } from "./http/web-assets.ts";
import { createJobRunner } from "./jobs/runner.ts";
import { createDispatcher } from "./outbox/dispatcher.ts";
import { startOutboxHousekeeping } from "./outbox/housekeeping.ts";
import { startIntakeHousekeeping } from "./modules/intake/purge.ts";
import { startAuditHousekeeping } from "./modules/audit/housekeeping.ts";
import { createInferenceClient } from "./ai/inference-client.ts";
import { analyseAnswer, giveUpOnAnswer, transcribeAnswer, type ProcessingDeps } from "./modules/responses/processing.ts";
import { countWorkspaces } from "./modules/workspaces/repository.ts";
import { createWorkspace } from "./modules/workspaces/service.ts";
import { issueOneTimeToken } from "./modules/users/accounts.ts";

/**
 * The HMAC key for signed URLs: `EARSHOT_SIGNING_SECRET`, else one generated on first start
 * and kept in the database so URLs survive restarts.
 */
export async function loadSigningSecret(db: Kysely<Database>, config: Config): Promise<string> {
  if (config.signingSecret) return config.signingSecret;
  const row = await db.selectFrom("settings").select("value").where("key", "=", "signing_secret").executeTakeFirst();
  if (row) return row.value;
  const secret = randomBytes(32).toString("base64url");
  await db.insertInto("settings").values({ key: "signing_secret", value: secret }).onConflict((oc) => oc.column("key").doNothing()).execute();
  return (await db.selectFrom("settings").select("value").where("key", "=", "signing_secret").executeTakeFirstOrThrow()).value;
}

async function greetFirstStart(db: Kysely<Database>, config: Config, log: Logger): Promise<void> {
  if ((await countWorkspaces(db)) > 0) return;
  // A self-hosted box's own workspace is not rationed (DESIGN §2).
  const ws = await createWorkspace(db, { name: "Default workspace", slug: "default", plan: "enterprise" });
  const setup = await issueOneTimeToken(db, "setup", { workspaceUuid: ws.workspace_uuid });
  log.info("created the default workspace", { workspace_uuid: ws.workspace_uuid });
  const api = `${config.publicUrl}/api/v1`;
  process.stdout.write(
    [
      "",
      "Earshot is set up. This API key is shown once; keep it somewhere safe:",
      "",
      `  ${ws.api_key}`,
      "",
      "Create a feedback link:",
      "",
      `  curl -s -X POST ${api}/links/ -H 'Authorization: Bearer ${ws.api_key}' -H 'Content-Type: application/json' \\`,
      `    -d '{"name": "Product feedback", "questions": [{"prompt": "What should we improve?", "type": "voice"}, {"prompt": "How likely are you to recommend us?", "type": "rating", "configuration": {"scale_type": "nps"}}]}'`,
      "",
      "Open the link's public_url from the answer in a browser to respond.",
      "",
      "Create the console's owner account (single use, valid 24 hours):",
      "",
      `  ${config.publicUrl}/console/setup/?token=${setup.token}`,
      "",
    ].join("\n"),
  );
}

export type RunningServer = { url: string; stop(): Promise<void> };

/** Delay between listening and starting the housekeeping schedules, in ms. */
const HOUSEKEEPING_DELAY_MS = 250;

/** How often the job runner looks for the ASR model while transcriptions wait for it. */
const MODEL_RECHECK_MS = 10_000;

/**
 * Starts everything and listens.
 * @returns the server's URL and a `stop()` that drains the job runner and closes the worker and database
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const log = createLogger(config.logLevel);
  const db = openDatabase(config.dbFile);
  await migrateToLatest(db);
  const signingSecret = await loadSigningSecret(db, config);
  await greetFirstStart(db, config, log);
  const blobs = createLocalBlobStore(config.blobsDir);
  if (!fs.existsSync(path.join(config.modelsDir, config.asrModel, "config.json"))) {
    log.warn("the Whisper model is not installed: voice answers wait for it (waiting_for_model) and are transcribed once it is", {
      model: config.asrModel,
      models_dir: config.modelsDir,
      fix: "earshot models fetch (or: earshot models fetch --from DIR)",
    });
  }
  const inference = createInferenceClient({ modelsDir: config.modelsDir, asrModel: config.asrModel, sentimentModel: config.sentimentModel, llmUrl: config.llmUrl, threads: config.inferenceThreads, llmModel: config.llmModel });
  let nudgeJobs = () => {};
  const dispatcher = createDispatcher({ db, log, config });
  const nudgeOutbox = () => dispatcher.nudge();
  const processing: ProcessingDeps = {
    db,
    blobs,
    inference,
    publicUrl: config.publicUrl,
    signingSecret,
    audioUrlTtlS: config.audioUrlTtlS,
    nudgeJobs: () => nudgeJobs(),
    nudgeOutbox,
  };
  const runner = createJobRunner({
    db,
    log,
    pollMs: config.jobPollMs,
    handlers: { transcribe: (job) => transcribeAnswer(processing, job), analyse: (job) => analyseAnswer(processing, job) },
    onGiveUp: (job, error) => giveUpOnAnswer(processing, job, error),
    // Transcriptions parked while the model was missing resume once its files appear (issue 12).
    resume: { kind: "transcribe", ready: () => isModelInstalled(config.modelsDir, config.asrModel), everyMs: MODEL_RECHECK_MS },
  });
  nudgeJobs = () => runner.nudge();
  const appDeps: AppDeps = {
    config,
    db,
    log,
    blobs,
    auth: createAuthenticator(db, config, createRateLimiter(), createUsageRecorder(db, { log })),
    signingSecret,
    webAssets: await loadWebAssets(),
    nudgeJobs: () => runner.nudge(),
    nudgeOutbox,
    inference,
  };
  const app = createApp(appDeps);
  const tls = config.tlsCert && config.tlsKey ? { cert: Bun.file(config.tlsCert), key: Bun.file(config.tlsKey) } : undefined;
  // Bun's own limit answers an empty 413; ours (http/body.ts) answer problem+json and are checked
  // per route before reading, so Bun's is lifted out of the way. Nothing reads a body unbounded.
  app.listen({ port: config.port, hostname: config.host, tls, maxRequestBodySize: Number.MAX_SAFE_INTEGER });
  const server = app.server!;
  if (!config.jobsPaused) await runner.start();
  else log.warn("job processing is paused (EARSHOT_JOBS_PAUSED); jobs are queued but not run");
  await dispatcher.start();
  // Housekeeping (cron schedules, the start-up purge of abandoned sessions and .tmp files) starts
  // just after listening: the first requests need none of it, and it costs ~30 ms (bench/startup.ts).
  let housekeeping: { stop(): Promise<void> } | null = null;
  let intakeHousekeeping: { stop(): Promise<void> } | null = null;
  let auditHousekeeping: { stop(): Promise<void> } | null = null;
  const housekeepingTimer = setTimeout(() => {
    housekeeping = startOutboxHousekeeping({ db, log, retentionDays: config.deliveryLogRetentionDays });
    intakeHousekeeping = startIntakeHousekeeping({ db, blobs, log, blobsDir: config.blobsDir }, config.sessionRetentionDays);
    auditHousekeeping = startAuditHousekeeping({ db, log });
  }, HOUSEKEEPING_DELAY_MS);
  const url = `${tls ? "https" : "http"}://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`;
  log.info("listening", { url, public_url: config.publicUrl, data_dir: config.dataDir });
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      // Usage counts still in memory (DESIGN §5), before the database closes.
      await appDeps.auth.usage.stop();
      clearTimeout(housekeepingTimer);
      await housekeeping?.stop();
      await intakeHousekeeping?.stop();
      await auditHousekeeping?.stop();
      await dispatcher.stop();
      await runner.stop();
      await inference.close();
      await db.destroy();
    },
  };
}
