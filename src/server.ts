/**
 * @module server
 * Composition root of `earshot serve` (STYLE: config → db → migrate → worker → job runner →
 * listen; graceful stop). Also creates the default workspace on first start and prints its key.
 */
import type { Kysely } from "kysely";
import { createAppDeps, processingDepsOf } from "./app-deps.ts";
import type { Config } from "./config.ts";
import { AppError } from "./errors.ts";
import { problemResponse } from "./http/problem.ts";
import type { Database } from "./db/schema.ts";
import { startCheckpointer, type Checkpointer } from "./db/checkpointer.ts";
import { engineOf } from "./db/engine.ts";
import { createLogger, type Logger } from "./logger.ts";
import { isAsrModelInstalled } from "./ai/asr-files.ts";
import { createJobRunner, type JobRunner } from "./jobs/runner.ts";
import { createDispatcher, type Dispatcher } from "./outbox/dispatcher.ts";
import { createScheduler } from "./jobs/scheduler.ts";
import { purgeIntakeAtStart } from "./modules/intake/purge.ts";
import { periodicTasks } from "./periodic.ts";
import { analyseAnswer, giveUpOnAnswer, transcribeAnswer } from "./modules/responses/processing.ts";
import { giveUpOnMail, sendMailJob } from "./modules/mail/service.ts";
import { createMailer } from "./mail/transport.ts";
import { rebuildThemes } from "./modules/themes/engine.ts";
import { countWorkspaces } from "./modules/workspaces/repository.ts";
import { createWorkspace } from "./modules/workspaces/service.ts";
import { freshSetupUrl } from "./modules/users/admin.ts";
import { WORKER_STALL_MS, type WorkerState } from "./modules/health/readiness.ts";
import { publicUrlHint } from "./public-url-hint.ts";

export { loadSigningSecret } from "./app-deps.ts";

/** @returns true when this start created the default workspace (and printed its key and setup URL) */
async function greetFirstStart(db: Kysely<Database>, config: Config, log: Logger): Promise<boolean> {
  if ((await countWorkspaces(db)) > 0) return false;
  // A self-hosted box's own workspace is not rationed (DESIGN §2).
  const ws = await createWorkspace(db, { name: "Default workspace", slug: "default", plan: "enterprise" });
  const setupUrl = await freshSetupUrl(db, config.publicUrl);
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
      `  ${setupUrl}`,
      "",
    ].join("\n"),
  );
  return true;
}

/**
 * Every later start while nobody owns the console (issue 26: a restart before the owner account
 * existed left the operator without a way in): a fresh setup URL, the earlier ones void.
 */
async function remindSetup(db: Kysely<Database>, config: Config): Promise<void> {
  const url = await freshSetupUrl(db, config.publicUrl);
  if (!url) return;
  process.stdout.write(
    [
      "",
      "The console has no owner yet. Create the owner account here (single use, valid 24 hours; earlier setup URLs no longer work):",
      "",
      `  ${url}`,
      "",
    ].join("\n"),
  );
}

/** The state of this node's background worker (job runner and dispatcher), for readiness. */
function workerStateOf(config: Config, runner: JobRunner | null, dispatcher: Dispatcher | null): WorkerState {
  if (config.role === "api") return "not_run_here";
  const loops = [dispatcher?.lastTurnMs() ?? null, ...(config.jobsPaused ? [] : [runner?.lastTurnMs() ?? null])];
  if (loops.some((t) => t === null)) return "starting";
  if (loops.some((t) => Date.now() - t! > WORKER_STALL_MS)) return "stalled";
  return config.jobsPaused ? "paused" : "ok";
}

export type RunningServer = {
  url: string;
  /** Graceful stop; `signal` (e.g. SIGTERM) is logged with each step of the drain. */
  stop(signal?: string): Promise<void>;
};

/** What a worker node (--role worker) answers on every path but /healthz: 404 problem+json. */
function workerOnlyResponse(): Response {
  return problemResponse(new AppError("NOT_FOUND", "This node runs with --role worker: it runs jobs and webhook deliveries and serves only /healthz."));
}

/** What a worker node answers: health, readiness and its metrics (its queue is what a scrape wants to see). */
const WORKER_PATHS = /^\/(healthz(\/live|\/ready)?|metrics)$/;

/** Delay between listening and starting the housekeeping schedules, in ms. */
const HOUSEKEEPING_DELAY_MS = 250;

/** How often the job runner looks for the ASR model while transcriptions wait for it. */
const MODEL_RECHECK_MS = 10_000;

/**
 * Starts everything and listens.
 * @returns the server's URL and a `stop()` that drains the job runner and closes the worker and database
 */
export async function startServer(config: Config): Promise<RunningServer> {
  // Before any request can arrive: the start-up purge removes only `.tmp` files older than this.
  const startedAtMs = Date.now();
  const log = createLogger(config.logLevel);
  let runner: JobRunner | null = null;
  let dispatcher: Dispatcher | null = null;
  const wiring = await createAppDeps(config, {
    log,
    nudgeJobs: () => runner?.nudge(),
    nudgeOutbox: () => dispatcher?.nudge(),
    workerState: () => workerStateOf(config, runner, dispatcher),
  });
  const { app, db, deps: appDeps } = wiring;
  const { blobs } = appDeps;
  if (!(await greetFirstStart(db, config, log)) && config.role !== "worker") await remindSetup(db, config);
  if (!isAsrModelInstalled(config.modelsDir, config.asrModel, config.asrEngine)) {
    log.warn("the Whisper model is not installed: voice answers wait for it (waiting_for_model) and are transcribed once it is", {
      model: config.asrModel,
      models_dir: config.modelsDir,
      fix: "earshot models fetch (or: earshot models fetch --from DIR)",
    });
  }
  dispatcher = createDispatcher({ db, log, config, clock: appDeps.clock });
  const processing = processingDepsOf(appDeps);
  // Periodic work is jobs, queued once per period per cluster (jobs/scheduler.ts, periodic.ts).
  const scheduler = createScheduler({ db, clock: appDeps.clock, log, tasks: periodicTasks(appDeps, log) });
  // Mail (DESIGN §15): one transport for the queued invites and resets; none when mail is off.
  const mailer = config.smtpUrl && config.mailFrom ? createMailer({ smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, smtpCaFile: config.smtpCaFile }) : null;
  const mailDeps = { db, mailer, log, clock: appDeps.clock };
  runner = createJobRunner({
    db,
    log,
    clock: appDeps.clock,
    pollMs: config.jobPollMs,
    handlers: {
      transcribe: (job) => transcribeAnswer(processing, job),
      analyse: (job) => analyseAnswer(processing, job),
      themes: (job) => rebuildThemes(processing, job),
      periodic: scheduler.handler,
      mail: (job) => sendMailJob(mailDeps, job),
    },
    onGiveUp: (job, error) => (job.kind === "mail" ? giveUpOnMail(mailDeps, job, error) : giveUpOnAnswer(processing, job, error)),
    // Transcriptions parked while the model was missing resume once its files appear (issue 12).
    resume: { kind: "transcribe", ready: () => isAsrModelInstalled(config.modelsDir, config.asrModel, config.asrEngine), everyMs: MODEL_RECHECK_MS },
  });
  const tls = config.tlsCert && config.tlsKey ? { cert: Bun.file(config.tlsCert), key: Bun.file(config.tlsKey) } : undefined;
  // Bun's own limit answers an empty 413; ours (http/body.ts) answer problem+json and are checked
  // per route before reading, so Bun's is lifted out of the way. Nothing reads a body unbounded.
  // A worker node (--role worker) answers only /healthz, so a load balancer can check it.
  const serveHttp = config.role !== "worker";
  const background = config.role !== "api";
  let server: { port?: number; stop(): Promise<void> | void };
  if (serveHttp) {
    app.listen({ port: config.port, hostname: config.host, tls, maxRequestBodySize: Number.MAX_SAFE_INTEGER });
    server = app.server!;
  } else {
    server = Bun.serve({
      port: config.port,
      hostname: config.host,
      tls,
      fetch: (req) => (WORKER_PATHS.test(new URL(req.url).pathname) ? app.handle(req) : workerOnlyResponse()),
    });
  }
  // Jobs and deliveries run on `all` and `worker` nodes; an `api` node only queues them (the
  // workers poll, so nothing waits for a nudge that goes nowhere). They start just after listening,
  // with the housekeeping (the scheduler of periodic jobs, the start-up purge of abandoned sessions and .tmp files):
  // the first requests need none of it — releasing leases and recovering interrupted jobs was ~13 %
  // of the start, housekeeping ~30 ms (bench/startup.ts) — and queued work waits for it either way.
  if (background && config.jobsPaused) log.warn("job processing is paused (EARSHOT_JOBS_PAUSED); jobs are queued but not run");
  let startPurge: Promise<void> = Promise.resolve();
  let checkpointer: Checkpointer | null = null;
  let backgroundStarted: Promise<void> = Promise.resolve();
  const housekeepingTimer = setTimeout(() => {
    // One full collection of what the start left behind (module evaluation, Elysia's compiled
    // routes, on a first start the migrations): an idle server allocates too little for the
    // collector to come back to it soon. ~2 MB of idle RSS, ~10 ms once, after the first requests.
    Bun.gc(true);
    // SQLite's WAL checkpoints from a worker thread instead of inside some request's commit (db/checkpointer.ts).
    // Per file, so per process by nature: only the engine that is one file has one.
    if (engineOf(db).singleFile) checkpointer = startCheckpointer(db, config.dbFile, { log });
    if (!background) return;
    backgroundStarted = (async () => {
      if (!config.jobsPaused) await runner.start();
      await dispatcher.start();
      await scheduler.start();
    })().catch((err) => log.error("starting the job runner, the webhook dispatcher or the scheduler failed", { error: String(err) }));
    startPurge = purgeIntakeAtStart({ db, blobs, log, blobsDir: config.blobsDir }, config.sessionRetentionDays, startedAtMs);
  }, HOUSEKEEPING_DELAY_MS);
  const url = `${tls ? "https" : "http"}://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`;
  log.info("listening", { url, public_url: config.publicUrl, data_dir: config.dataDir, role: config.role });
  const hint = publicUrlHint(config.publicUrl, config.host);
  if (hint) log.warn(hint);
  let stopped = false;
  return {
    url,
    async stop(signal) {
      if (stopped) return;
      stopped = true;
      const startMs = performance.now();
      const since = () => Math.round(performance.now() - startMs);
      log.info("stopping: no new connections; draining requests in flight, the job in hand and webhook deliveries in flight", { signal: signal ?? null });
      await server.stop();
      log.info("stopping: requests drained", { ms: since() });
      // Usage counts still in memory (DESIGN §5), before the database closes.
      await appDeps.auth.usage.stop();
      clearTimeout(housekeepingTimer);
      await backgroundStarted;
      await scheduler.stop();
      await startPurge;
      await dispatcher.stop();
      await runner.stop();
      mailer?.close();
      log.info("stopping: jobs and deliveries drained", { ms: since() });
      await checkpointer?.stop();
      // The inference worker and the database.
      await wiring.close();
      log.info("stopped", { signal: signal ?? null, ms: since() });
    },
  };
}
