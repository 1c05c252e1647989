/**
 * @module health/routes
 * `GET /healthz` (no auth; DESIGN §9, console contract): `status`, the installed models and whether
 * each one's files are present (the same check as the warning `earshot serve` prints at start), and
 * the job queue's counts.
 */
import fs from "node:fs";
import path from "node:path";
import { Elysia } from "elysia";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AppDeps } from "../../http/context.ts";

/** True when a model's files are under the models directory (its `config.json`). */
export function isModelInstalled(modelsDir: string, modelId: string): boolean {
  return fs.existsSync(path.join(modelsDir, modelId, "config.json"));
}

/** Jobs due (`queued`), running, parked until the ASR model is installed (`waiting`), and failed for good. */
export async function jobCounts(db: Kysely<Database>): Promise<{ pending: number; running: number; waiting_for_model: number; failed: number }> {
  const rows = await db.selectFrom("jobs").select(["state", (eb) => eb.fn.countAll<number>().as("n")]).where("state", "in", ["queued", "running", "waiting", "failed"]).groupBy("state").execute();
  const n = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
  return { pending: n("queued"), running: n("running"), waiting_for_model: n("waiting"), failed: n("failed") };
}

/** `GET /healthz`. */
export function healthRoutes(deps: AppDeps) {
  const { modelsDir, asrModel, sentimentModel } = deps.config;
  const status = (id: string) => ({ id, status: isModelInstalled(modelsDir, id) ? ("installed" as const) : ("missing" as const) });
  return new Elysia({ name: "health" }).get("/healthz", async () => ({
    status: "ok",
    models: { asr: status(asrModel), sentiment: status(sentimentModel) },
    jobs: await jobCounts(deps.db),
  }));
}
