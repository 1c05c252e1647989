/**
 * @module health/readiness
 * `GET /healthz/live` and `GET /healthz/ready` (DESIGN §14). Live: the process answers. Ready: the
 * database answers within 3 s, its migrations are exactly this build's, and the background worker
 * (job runner and webhook dispatcher, on nodes that run them) is turning — a load balancer or an
 * orchestrator sends traffic only to a ready node and restarts one that is not live.
 */
import type { Kysely } from "kysely";
import { EARSHOT_VERSION } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import { migrationsUpToDate } from "../../db/client.ts";
import { isDatabaseUnavailable } from "../../db/availability.ts";

// The worker's state is part of what the app is built from (http/context.ts); readiness reports it.
import type { WorkerState } from "../../http/context.ts";
export type { WorkerState };

/** A loop that has not begun a turn for this long is stalled (longer than any one job or delivery round). */
export const WORKER_STALL_MS = 10 * 60_000;

/** How long readiness waits for the database. */
const DATABASE_TIMEOUT_MS = 3000;

/** The `/healthz/ready` body; HTTP 200 when `status` is `ready`, else 503. */
export type Readiness = {
  status: "ready" | "not_ready";
  version: string;
  checks: { database: "ok" | "unreachable"; migrations: "ok" | "pending" | "unknown"; worker: WorkerState };
};

/** The `/healthz/live` body: the process answers (no database read). */
export function liveness(): { status: "ok"; version: string } {
  return { status: "ok", version: EARSHOT_VERSION };
}

/**
 * Checks readiness.
 * @param worker this node's worker state (server.ts), or undefined when the app runs none
 * @throws whatever the database throws other than "unreachable" (a bug: answered INTERNAL)
 */
export async function readiness(db: Kysely<Database>, worker: (() => WorkerState) | undefined): Promise<Readiness> {
  let database: Readiness["checks"]["database"] = "ok";
  let migrations: Readiness["checks"]["migrations"] = "unknown";
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), DATABASE_TIMEOUT_MS);
    });
    migrations = (await Promise.race([migrationsUpToDate(db), timeout])) ? "ok" : "pending";
  } catch (err) {
    if (!(err instanceof Error && err.message === "timeout") && !isDatabaseUnavailable(err)) throw err;
    database = "unreachable";
  } finally {
    clearTimeout(timer);
  }
  const workerState = worker?.() ?? "not_run_here";
  const ready = database === "ok" && migrations === "ok" && (workerState === "ok" || workerState === "paused" || workerState === "not_run_here");
  return { status: ready ? "ready" : "not_ready", version: EARSHOT_VERSION, checks: { database, migrations, worker: workerState } };
}
