/**
 * @module config
 * The only reader of `process.env`: zod turns `EARSHOT_*` variables (and CLI flag overrides)
 * into one frozen {@link Config}. Every default is safe, so `earshot serve` runs with none set
 * (DESIGN §1, §2).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { frameAncestorsProblem } from "./http/security-headers.ts";
import { mailFromProblem, parseSmtpUrl } from "./mail/settings.ts";
import { parseOidcSettings, type OidcSettings } from "./modules/oidc/settings.ts";
import pkg from "../package.json" with { type: "json" };

/** This build's version (package.json's, embedded in the compiled binary): `earshot --version`, `/healthz`. */
export const EARSHOT_VERSION: string = pkg.version;

/**
 * The secret variables (DESIGN §14): each `X` may instead be given as `X_FILE`, the path of a file
 * holding the value (Docker and systemd credentials, Kubernetes secrets). Listed in docs/operations.md.
 */
export const SECRET_VARIABLES = [
  "EARSHOT_DATABASE_URL",
  "EARSHOT_SIGNING_SECRET",
  "EARSHOT_METRICS_TOKEN",
  "EARSHOT_SMTP_URL",
  "EARSHOT_OIDC_CLIENT_SECRET",
] as const;

const booleanFlag = z
  .string()
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes");

const listOf = z
  .string()
  .optional()
  .transform((v) =>
    v
      ? v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  );

const envSchema = z.object({
  EARSHOT_DATA_DIR: z.string().default("./data"),
  /** PostgreSQL instead of the SQLite file (DESIGN §11): `postgres://user:pass@host:port/db`. */
  EARSHOT_DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => !v || /^postgres(ql)?:\/\//i.test(v), "a postgres:// or postgresql:// URL"),
  /**
   * SQLite's `synchronous` in WAL mode: `full` syncs the WAL at every commit (an acknowledged write
   * survives a power cut), `normal` only at checkpoints (docs/operations.md, "Power cuts").
   */
  EARSHOT_SQLITE_SYNCHRONOUS: z.enum(["full", "normal"]).default("full"),
  EARSHOT_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  EARSHOT_HOST: z.string().default("0.0.0.0"),
  EARSHOT_PUBLIC_URL: z.string().url().optional(),
  EARSHOT_MODELS_DIR: z.string().default("./models"),
  EARSHOT_ASR_MODEL: z.string().default("Xenova/whisper-tiny.en"),
  /** ONNX Runtime intra-op threads for Whisper; default: all cores but one (at least 1). */
  EARSHOT_INFERENCE_THREADS: z.coerce.number().int().min(1).max(256).optional(),
  /**
   * Seconds without a transcription after which the worker unloads the Whisper model (idle RSS
   * drops; the next answer reloads it). 0 = never. Fractions allowed (tests use short values).
   */
  EARSHOT_ASR_IDLE_UNLOAD_S: z.coerce.number().min(0).max(604_800).default(600),
  /** Voice-activity step before Whisper (src/ai/vad.ts): `energy` cuts long pauses and skips silence. */
  EARSHOT_VAD: z.enum(["off", "energy"]).default("energy"),
  /** Speech recognition engine (src/ai/asr-engine.ts): whisper.cpp when a ggml file is installed (`auto`), or forced. */
  EARSHOT_ASR_ENGINE: z.enum(["auto", "whispercpp", "transformers"]).default("auto"),
  /** Where `earshot models fetch` downloads from (a hub or a mirror with the hub's URL layout). */
  EARSHOT_MODELS_HUB_URL: z.string().url().optional(),
  EARSHOT_SENTIMENT_MODEL: z.string().default("Xenova/twitter-roberta-base-sentiment-latest"),
  /** Themes engine (src/ai/themes/select.ts): `auto`, `sif`, or a sentence-embedding model id. */
  EARSHOT_EMBEDDING_MODEL: z.string().min(1).default("auto"),
  EARSHOT_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  EARSHOT_LLM_URL: z.string().url().optional(),
  EARSHOT_LLM_MODEL: z.string().optional(),
  EARSHOT_TRUSTED_PROXIES: listOf,
  EARSHOT_ALLOW_INSECURE_HTTP: booleanFlag,
  EARSHOT_TLS_CERT: z.string().optional(),
  EARSHOT_TLS_KEY: z.string().optional(),
  EARSHOT_WEBHOOK_ALLOW_HOSTS: listOf,
  EARSHOT_WEBHOOK_CA_FILE: z.string().optional(),
  /** Mail (DESIGN §15, src/mail/settings.ts): `smtp://` (STARTTLS when offered) or `smtps://`. */
  EARSHOT_SMTP_URL: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      if (!v) return;
      try {
        parseSmtpUrl(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),
  EARSHOT_MAIL_FROM: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const problem = v ? mailFromProblem(v) : null;
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  /** PEM file of the certificate authorities the SMTP server's certificate is checked against (besides the system's). */
  EARSHOT_SMTP_CA_FILE: z.string().optional(),
  /** Comma-separated retry delays in seconds; default is DESIGN §8's schedule. */
  EARSHOT_WEBHOOK_RETRY_SCHEDULE_S: z.string().optional(),
  EARSHOT_WEBHOOK_DISABLE_AFTER_S: z.coerce
    .number()
    .positive()
    .default(5 * 24 * 3600),
  EARSHOT_DELIVERY_LOG_RETENTION_DAYS: z.coerce.number().positive().default(30),
  EARSHOT_ROLE: z.enum(["all", "api", "worker"]).default("all"),
  /** Session starts per client address and link per minute on the public intake; 0 = unlimited. */
  EARSHOT_INTAKE_SESSIONS_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Recordings and files one intake session may hold at once, MiB. */
  EARSHOT_INTAKE_SESSION_UPLOAD_MB: z.coerce.number().positive().default(100),
  /** Upload bodies one client address may send to the intake per hour, MiB; 0 = unlimited. */
  EARSHOT_INTAKE_ADDRESS_UPLOAD_MB_PER_HOUR: z.coerce.number().min(0).default(1024),
  /** Unsubmitted (`started`) sessions untouched this long are purged with their uploads. */
  EARSHOT_SESSION_RETENTION_DAYS: z.coerce.number().positive().default(30),
  EARSHOT_AUDIO_URL_TTL_S: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600),
  EARSHOT_SIGNING_SECRET: z.string().optional(),
  EARSHOT_JOB_POLL_MS: z.coerce.number().int().positive().default(500),
  EARSHOT_OUTBOX_POLL_MS: z.coerce.number().int().positive().default(500),
  /** Queue jobs but do not run them (an API-only node, or maintenance). */
  EARSHOT_JOBS_PAUSED: booleanFlag,
  /** Bearer token for `GET /metrics` (besides API keys with `metrics:read`); at least 16 characters. */
  EARSHOT_METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
  /** One log line per HTTP request (method, route template, status, duration, client address). */
  EARSHOT_ACCESS_LOG: booleanFlag,
  /** `false` turns email + password sign-in off (single sign-on only; modules/oidc). */
  EARSHOT_PASSWORD_SIGNIN: z.enum(["true", "false", "1", "0", "yes", "no"]).default("true"),
  /** Who may frame the intake page: CSP `frame-ancestors` sources (`'self'`, origins); default nobody. */
  EARSHOT_FRAME_ANCESTORS: z
    .string()
    .default("'none'")
    .transform((v) => v.trim().replace(/\s+/g, " ") || "'none'")
    .superRefine((v, ctx) => {
      const problem = frameAncestorsProblem(v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
});

export type Config = Readonly<{
  dataDir: string;
  dbFile: string;
  /** PostgreSQL URL (DESIGN §11) or null for the SQLite file `dbFile`; open `databaseUrl ?? dbFile`. */
  databaseUrl: string | null;
  /** SQLite only: `full` (acknowledged = on disk, the default) or `normal` (docs/decisions/sqlite-durability.md). */
  sqliteSynchronous: "full" | "normal";
  blobsDir: string;
  port: number;
  host: string;
  /** Base URL without trailing slash, e.g. `http://localhost:8080`. */
  publicUrl: string;
  modelsDir: string;
  asrModel: string;
  sentimentModel: string;
  /** `auto` (an installed sentence-embedding model, else the built-in engine), `sif`, or a model id. */
  embeddingModel: string;
  modelsHubUrl: string | null;
  inferenceThreads: number;
  /** `EARSHOT_ASR_IDLE_UNLOAD_S`: idle seconds before the Whisper model is unloaded; 0 = never. */
  asrIdleUnloadS: number;
  /** `EARSHOT_VAD`: `energy` cuts pauses > 1 s before Whisper and skips audio without speech; `off`. */
  vad: "off" | "energy";
  /** `EARSHOT_ASR_ENGINE`: `auto` (whisper.cpp when `<model>/ggml-model.bin` is installed and runs here), `whispercpp`, `transformers`. */
  asrEngine: "auto" | "whispercpp" | "transformers";
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  llmUrl: string | null;
  llmModel: string | null;
  trustedProxies: readonly string[];
  allowInsecureHttp: boolean;
  tlsCert: string | null;
  tlsKey: string | null;
  webhookAllowHosts: readonly string[];
  webhookCaFile: string | null;
  /** `EARSHOT_SMTP_URL` (secret: it may hold the password), or null when mail is off. */
  smtpUrl: string | null;
  /** `EARSHOT_MAIL_FROM`: the From of every message; set whenever `smtpUrl` is. */
  mailFrom: string | null;
  /** `EARSHOT_SMTP_CA_FILE`: extra trusted CAs (PEM) for the SMTP server, or null. */
  smtpCaFile: string | null;
  /** Retry delays in seconds after attempt 1, 2, …; DESIGN §8. */
  webhookRetryScheduleS: readonly number[];
  webhookDisableAfterS: number;
  deliveryLogRetentionDays: number;
  /** DESIGN §9: session starts per client address and link per minute; 0 turns the limit off. */
  intakeSessionsPerMinute: number;
  /** Bytes of recordings and files one intake session may hold at once. */
  intakeSessionUploadBytes: number;
  /** Upload bytes one client address may send per hour; 0 = unlimited. */
  intakeAddressUploadBytesPerHour: number;
  /** Days after which abandoned `started` sessions and their blobs are purged. */
  sessionRetentionDays: number;
  audioUrlTtlS: number;
  /** Explicit HMAC secret for signed URLs; when null one is generated and kept in the database. */
  signingSecret: string | null;
  jobPollMs: number;
  outboxPollMs: number;
  jobsPaused: boolean;
  /**
   * What `earshot serve` runs (DESIGN §11, `--role` / `EARSHOT_ROLE`): `all` (default) the HTTP
   * API, the job runner and the webhook dispatcher; `api` only the HTTP side; `worker` only the
   * jobs and deliveries, answering nothing over HTTP but `/healthz`.
   */
  role: "all" | "api" | "worker";
  /** CSP `frame-ancestors` source list of the intake page (`'none'` unless the operator allows embedding). */
  frameAncestors: string;
  /** Bearer token that may read `GET /metrics` (DESIGN §14), or null (then only API keys with `metrics:read`). */
  metricsToken: string | null;
  /** Log one line per HTTP request (`EARSHOT_ACCESS_LOG`; docs/operations.md says what it holds). */
  accessLog: boolean;
  /** Instance-wide OpenID Connect sign-in (`EARSHOT_OIDC_*`, DESIGN §15), or null when not configured. */
  oidc: OidcSettings | null;
  /** False when `EARSHOT_PASSWORD_SIGNIN=false`: `POST auth/login/` is refused (single sign-on only). */
  passwordSignIn: boolean;
}>;

/** DESIGN §8: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_S = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;

export type ConfigOverrides = Partial<{ dataDir: string; port: number; host: string; databaseUrl: string; role: Config["role"] }>;

/**
 * Builds the frozen configuration from an environment map and CLI overrides (flags win).
 * @param env usually `process.env`
 * @throws Error naming each invalid variable (the CLI prints it and exits 2)
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: ConfigOverrides = {}): Config {
  // Parsed once per process: zod's generated (JIT) object parser would cost more to compile
  // (~2 ms of every start) than it saves.
  const resolved = withSecretFiles(env);
  const parsed = envSchema.safeParse(resolved, { jitless: true });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(overrides.dataDir ?? e.EARSHOT_DATA_DIR);
  const port = overrides.port ?? e.EARSHOT_PORT;
  const scheme = e.EARSHOT_TLS_CERT ? "https" : "http";
  const publicUrl = (e.EARSHOT_PUBLIC_URL ?? `${scheme}://localhost:${port}`).replace(/\/+$/, "");
  const schedule = e.EARSHOT_WEBHOOK_RETRY_SCHEDULE_S
    ? e.EARSHOT_WEBHOOK_RETRY_SCHEDULE_S.split(",").map((s) => Number(s.trim()))
    : [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_S];
  if (schedule.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error("Invalid configuration:\n  EARSHOT_WEBHOOK_RETRY_SCHEDULE_S: comma-separated seconds");
  }
  if (e.EARSHOT_SMTP_URL && !e.EARSHOT_MAIL_FROM) {
    throw new Error("Invalid configuration:\n  EARSHOT_MAIL_FROM: needed with EARSHOT_SMTP_URL (the sender address of invites and password resets)");
  }
  if (e.EARSHOT_SMTP_CA_FILE && !fs.existsSync(e.EARSHOT_SMTP_CA_FILE)) {
    throw new Error(`Invalid configuration:\n  EARSHOT_SMTP_CA_FILE: cannot read ${e.EARSHOT_SMTP_CA_FILE}`);
  }
  const oidc = parseOidcSettings(resolved);
  if (oidc && "problems" in oidc) throw new Error(`Invalid configuration:\n  ${oidc.problems.join("\n  ")}`);
  const passwordSignIn = !["false", "0", "no"].includes(e.EARSHOT_PASSWORD_SIGNIN);
  // Nobody could sign in: refuse to start rather than lock every account out.
  if (!passwordSignIn && !oidc) throw new Error("Invalid configuration:\n  EARSHOT_PASSWORD_SIGNIN: false needs single sign-on (EARSHOT_OIDC_ISSUER)");
  return Object.freeze({
    dataDir,
    dbFile: path.join(dataDir, "earshot.db"),
    databaseUrl: overrides.databaseUrl ?? (e.EARSHOT_DATABASE_URL || null),
    sqliteSynchronous: e.EARSHOT_SQLITE_SYNCHRONOUS,
    blobsDir: path.join(dataDir, "blobs"),
    port,
    host: overrides.host ?? e.EARSHOT_HOST,
    publicUrl,
    modelsDir: path.resolve(e.EARSHOT_MODELS_DIR),
    asrModel: e.EARSHOT_ASR_MODEL,
    sentimentModel: e.EARSHOT_SENTIMENT_MODEL,
    embeddingModel: e.EARSHOT_EMBEDDING_MODEL,
    modelsHubUrl: e.EARSHOT_MODELS_HUB_URL ?? null,
    inferenceThreads: e.EARSHOT_INFERENCE_THREADS ?? Math.max(1, os.availableParallelism() - 1),
    asrIdleUnloadS: e.EARSHOT_ASR_IDLE_UNLOAD_S,
    vad: e.EARSHOT_VAD,
    asrEngine: e.EARSHOT_ASR_ENGINE,
    logLevel: e.EARSHOT_LOG_LEVEL,
    llmUrl: e.EARSHOT_LLM_URL ?? null,
    llmModel: e.EARSHOT_LLM_MODEL ?? null,
    trustedProxies: e.EARSHOT_TRUSTED_PROXIES,
    allowInsecureHttp: e.EARSHOT_ALLOW_INSECURE_HTTP,
    tlsCert: e.EARSHOT_TLS_CERT ?? null,
    tlsKey: e.EARSHOT_TLS_KEY ?? null,
    webhookAllowHosts: e.EARSHOT_WEBHOOK_ALLOW_HOSTS,
    webhookCaFile: e.EARSHOT_WEBHOOK_CA_FILE ?? null,
    smtpUrl: e.EARSHOT_SMTP_URL || null,
    mailFrom: e.EARSHOT_SMTP_URL ? (e.EARSHOT_MAIL_FROM?.trim() ?? null) : null,
    smtpCaFile: e.EARSHOT_SMTP_CA_FILE ?? null,
    webhookRetryScheduleS: schedule,
    webhookDisableAfterS: e.EARSHOT_WEBHOOK_DISABLE_AFTER_S,
    deliveryLogRetentionDays: e.EARSHOT_DELIVERY_LOG_RETENTION_DAYS,
    intakeSessionsPerMinute: e.EARSHOT_INTAKE_SESSIONS_PER_MINUTE,
    intakeSessionUploadBytes: Math.round(e.EARSHOT_INTAKE_SESSION_UPLOAD_MB * 1024 * 1024),
    intakeAddressUploadBytesPerHour: Math.round(e.EARSHOT_INTAKE_ADDRESS_UPLOAD_MB_PER_HOUR * 1024 * 1024),
    sessionRetentionDays: e.EARSHOT_SESSION_RETENTION_DAYS,
    audioUrlTtlS: e.EARSHOT_AUDIO_URL_TTL_S,
    signingSecret: e.EARSHOT_SIGNING_SECRET ?? null,
    jobPollMs: e.EARSHOT_JOB_POLL_MS,
    outboxPollMs: e.EARSHOT_OUTBOX_POLL_MS,
    jobsPaused: e.EARSHOT_JOBS_PAUSED,
    role: overrides.role ?? e.EARSHOT_ROLE,
    frameAncestors: e.EARSHOT_FRAME_ANCESTORS,
    metricsToken: e.EARSHOT_METRICS_TOKEN ?? null,
    accessLog: e.EARSHOT_ACCESS_LOG,
    oidc,
    passwordSignIn,
  });
}

/**
 * The environment with each secret `X` read from the file named by `X_FILE` when that is set
 * (one trailing newline dropped: `echo secret > file` is the usual way to write one).
 * @throws Error naming the variable when both `X` and `X_FILE` are set, or the file cannot be
 *   read or is empty — never the value
 */
function withSecretFiles(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) {
      problems.push(`${name}_FILE: set either ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      const value = fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
      if (!value) problems.push(`${name}_FILE: ${file} is empty`);
      else out[name] = value;
    } catch (err) {
      problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  if (problems.length) throw new Error(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  return out;
}
