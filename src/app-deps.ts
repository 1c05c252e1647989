/**
 * @module app-deps
 * `createAppDeps(config)`: the one place that wires config → database → blob store → services →
 * the Elysia app. `earshot serve` (src/server.ts), the test helpers (test/helpers/api.ts) and the
 * benches build the app through it, so they cannot drift apart. Callers that own a job runner or an
 * outbox dispatcher pass their nudges in; everything else has a default taken from `config`.
 */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { createApp, type App } from "./app.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { createRateLimiter } from "./auth/rate-limit.ts";
import { createUsageRecorder } from "./auth/usage.ts";
import { createInferenceClient, type InferenceClient } from "./ai/inference-client.ts";
import { createBlobStore } from "./blobs/store.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { migrateToLatest, openDatabase, type Db } from "./db/client.ts";
import type { Database } from "./db/schema.ts";
import type { AppDeps } from "./http/context.ts";
import { loadWebAssets, type WebAssets } from "./http/web-assets.ts";
import { createLogger, type Logger } from "./logger.ts";
import type { ProcessingDeps } from "./modules/responses/processing.ts";
import { auditRecorder } from "./modules/audit/hook.ts";

/**
 * The HMAC key for signed URLs: `EARSHOT_SIGNING_SECRET`, else one generated on first start
 * and kept in the database so URLs survive restarts (and agree on every node).
 */
export async function loadSigningSecret(db: Kysely<Database>, config: Config): Promise<string> {
  if (config.signingSecret) return config.signingSecret;
  const row = await db.selectFrom("settings").select("value").where("key", "=", "signing_secret").executeTakeFirst();
  if (row) return row.value;
  const secret = randomBytes(32).toString("base64url");
  await db
    .insertInto("settings")
    .values({ key: "signing_secret", value: secret })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  return (await db.selectFrom("settings").select("value").where("key", "=", "signing_secret").executeTakeFirstOrThrow()).value;
}

/** What a caller may set instead of the defaults derived from `config`. */
export type AppDepsOptions = {
  /** Default: a logger at `config.logLevel`. */
  log?: Logger;
  /** Applies pending migrations before building the app (default true). */
  migrate?: boolean;
  /**
   * The inference worker. Default: one over `config.modelsDir` and its models, started lazily by
   * the first request that needs it; `close()` closes it either way.
   */
  inference?: InferenceClient;
  /** Default: the bundles of web/ (or the ones embedded in the binary). Tests pass an empty map. */
  webAssets?: WebAssets;
  /** Default: `loadSigningSecret(db, config)`. */
  signingSecret?: string;
  /** Wakes the job runner after a change queued jobs; default: nothing runs jobs here. */
  nudgeJobs?: () => void;
  /** Wakes the outbox dispatcher after a change queued events; default: no dispatcher here. */
  nudgeOutbox?: () => void;
  /** The time source handed to everything that leases, backs off or expires; default the system clock. */
  clock?: Clock;
  /** This node's background worker state, for readiness; default: none runs here. */
  workerState?: AppDeps["workerState"];
};

/** The wired application: its dependencies, the app over them, and how to close what was opened. */
export type AppWiring = {
  deps: AppDeps & { inference: InferenceClient };
  db: Db;
  app: App;
  /** Flushes the usage counters, closes the inference worker and the database. Idempotent. */
  close(): Promise<void>;
};

/**
 * Opens the database named by `config` (migrating it unless `opts.migrate === false`), the blob
 * store, the authenticator (rate limiter + usage recorder), the inference client and the web
 * assets, and builds the app over them. Listening is the caller's business.
 * @throws whatever opening or migrating the database throws (the caller reports it and exits)
 */
export async function createAppDeps(config: Config, opts: AppDepsOptions = {}): Promise<AppWiring> {
  const log = opts.log ?? createLogger(config.logLevel);
  const db = openDatabase(config.databaseUrl ?? config.dbFile, { synchronous: config.sqliteSynchronous });
  if (opts.migrate !== false) await migrateToLatest(db);
  const inference =
    opts.inference ??
    createInferenceClient({
      modelsDir: config.modelsDir,
      asrModel: config.asrModel,
      sentimentModel: config.sentimentModel,
      llmUrl: config.llmUrl,
      threads: config.inferenceThreads,
      asrIdleUnloadS: config.asrIdleUnloadS,
      vad: config.vad,
      asrEngine: config.asrEngine,
      llmModel: config.llmModel,
      embeddingModel: config.embeddingModel,
    });
  const deps: AppWiring["deps"] = {
    config,
    db,
    log,
    clock: opts.clock ?? systemClock,
    // Files under <data_dir>/blobs on SQLite, chunked rows in the database on PostgreSQL (src/blobs/).
    blobs: createBlobStore(db, config.blobsDir, { sync: config.sqliteSynchronous === "full" }),
    auth: createAuthenticator(db, config, createRateLimiter({ db, clock: opts.clock }), createUsageRecorder(db, { log })),
    signingSecret: opts.signingSecret ?? (await loadSigningSecret(db, config)),
    webAssets: opts.webAssets ?? (await loadWebAssets()),
    inference,
    nudgeJobs: opts.nudgeJobs ?? (() => {}),
    nudgeOutbox: opts.nudgeOutbox ?? (() => {}),
    ...(opts.workerState ? { workerState: opts.workerState } : {}),
    // The auth plugin runs it after the re-check; passed in so src/http/ imports no feature.
    audit: auditRecorder(db, log),
  };
  const app = createApp(deps);
  let closed: Promise<void> | null = null;
  return {
    deps,
    db,
    app,
    close: () =>
      (closed ??= (async () => {
        // Usage counts still in memory (DESIGN §5), before the database closes.
        await deps.auth.usage.stop();
        await inference.close();
        await db.destroy();
      })()),
  };
}

/** The dependencies of the job handlers (transcribe, analyse), from the app's. */
export function processingDepsOf(deps: AppWiring["deps"]): ProcessingDeps {
  return {
    db: deps.db,
    blobs: deps.blobs,
    inference: deps.inference,
    publicUrl: deps.config.publicUrl,
    signingSecret: deps.signingSecret,
    audioUrlTtlS: deps.config.audioUrlTtlS,
    nudgeJobs: deps.nudgeJobs,
    nudgeOutbox: deps.nudgeOutbox,
    llm: deps.config.llmUrl ? { url: deps.config.llmUrl, model: deps.config.llmModel } : null,
  };
}
