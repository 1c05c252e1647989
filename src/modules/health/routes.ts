/**
 * @module health/routes
 * `GET /healthz` (no auth; DESIGN §9, §11, console contract): `status`, the database this node uses
 * and whether it answers, the installed models and whether each one's files are present (the same
 * check as the warning `earshot serve` prints at start), and the job queue's counts. When the
 * database does not answer, `503` with `status: "unavailable"`, `database.reachable: false` and
 * `jobs: null`, so a load balancer takes the node out until the database is back.
 */
import fs from "node:fs";
import path from "node:path";
import { Elysia } from "elysia";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { dialectOf, type Dialect } from "../../db/dialect.ts";
import { isDatabaseUnavailable } from "../../db/availability.ts";
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
  const kind: Dialect = dialectOf(deps.db);
  return new Elysia({ name: "health" }).get("/healthz", async ({ set }) => {
    const models = { asr: status(asrModel), sentiment: status(sentimentModel) };
    let jobs: Awaited<ReturnType<typeof jobCounts>>;
    try {
      jobs = await withTimeout(jobCounts(deps.db), DATABASE_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof DatabaseTimeout) && !isDatabaseUnavailable(err)) throw err;
      set.status = 503;
      set.headers["retry-after"] = "5";
      return { status: "unavailable", database: { kind, reachable: false }, models, jobs: null };
    }
    return { status: "ok", database: { kind, reachable: true }, models, jobs };
  });
}

/** How long `/healthz` waits for the database before calling it unreachable (a dropped network never refuses). */
const DATABASE_TIMEOUT_MS = 3000;

class DatabaseTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeout(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
