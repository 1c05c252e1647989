/**
 * @module health/service
 * What `GET /healthz` reports (DESIGN §9, §11, console contract): the database this node uses and
 * whether it answers, whether each configured model's files are present (the same check as the
 * warning `earshot serve` prints at start; the ASR model's files per `EARSHOT_ASR_ENGINE`,
 * ai/asr-files.ts), and the job queue's counts.
 */
import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { engineOf, type Engine } from "../../db/engine.ts";
import { isDatabaseUnavailable } from "../../db/availability.ts";
import { jobCounts, type JobCounts } from "./repository.ts";
import { EARSHOT_VERSION } from "../../config.ts";
import { isAsrModelInstalled } from "../../ai/asr-files.ts";

/** How long `/healthz` waits for the database before calling it unreachable (a dropped network never refuses). */
const DATABASE_TIMEOUT_MS = 3000;

/** True when a model's files are under the models directory (its `config.json`). */
export function isModelInstalled(modelsDir: string, modelId: string): boolean {
  return fs.existsSync(path.join(modelsDir, modelId, "config.json"));
}

type ModelStatus = { id: string; status: "installed" | "missing" };

/** The `/healthz` body; `status: "unavailable"` (HTTP 503) with `jobs: null` when the database does not answer. */
export type HealthReport = {
  status: "ok" | "unavailable";
  /** This build's version (DESIGN §14). */
  version: string;
  database: { kind: Engine["name"]; reachable: boolean };
  models: { asr: ModelStatus; sentiment: ModelStatus };
  jobs: JobCounts | null;
};

class DatabaseTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeout(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Builds the health report.
 * @param models the models directory and the configured model ids
 * @throws whatever the database throws other than "unreachable" (a bug: answered INTERNAL)
 */
export async function healthReport(
  db: Kysely<Database>,
  models: { modelsDir: string; asrModel: string; sentimentModel: string; asrEngine?: "auto" | "whispercpp" | "transformers" },
): Promise<HealthReport> {
  const status = (id: string, installed: boolean): ModelStatus => ({ id, status: installed ? "installed" : "missing" });
  const asr = status(models.asrModel, isAsrModelInstalled(models.modelsDir, models.asrModel, models.asrEngine ?? "auto"));
  const base = {
    version: EARSHOT_VERSION,
    models: { asr, sentiment: status(models.sentimentModel, isModelInstalled(models.modelsDir, models.sentimentModel)) },
  };
  const kind = engineOf(db).name;
  try {
    const jobs = await withTimeout(jobCounts(db), DATABASE_TIMEOUT_MS);
    return { status: "ok", database: { kind, reachable: true }, ...base, jobs };
  } catch (err) {
    if (!(err instanceof DatabaseTimeout) && !isDatabaseUnavailable(err)) throw err;
    return { status: "unavailable", database: { kind, reachable: false }, ...base, jobs: null };
  }
}
