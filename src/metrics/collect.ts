/**
 * @module metrics/collect
 * What `GET /metrics` answers (DESIGN §14): the process's instruments (metrics/instruments.ts)
 * plus gauges read at scrape time from the database — job backlog by kind, webhook delivery
 * backlog, and the engine's own health (SQLite: WAL size and checkpoint lag; PostgreSQL: pool use
 * and lock waits). The database gauges go into a registry made for the one scrape, so nothing
 * global holds a database.
 */
import fs from "node:fs";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { engineOf } from "../db/engine.ts";
import { lastCheckpoint } from "../db/checkpointer.ts";
import { Gauge, Registry, type RegistryT } from "./client.ts";
import { registry, startProcessMetrics } from "./instruments.ts";
import { deliveryBacklog, jobBacklog } from "./repository.ts";

/** The `Content-Type` of the exposition (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = registry.contentType;

const ageS = (iso: string | null, nowMs: number) => (iso ? Math.max(0, (nowMs - Date.parse(iso)) / 1000) : 0);

function gauge(reg: RegistryT, name: string, help: string, labelNames: string[] = []) {
  return new Gauge({ name, help, labelNames, registers: [reg] });
}

/** Fills the scrape's registry with the gauges that need the database. */
async function databaseGauges(reg: RegistryT, db: Kysely<Database>, dbFile: string): Promise<void> {
  const nowMs = Date.now();
  const depth = gauge(reg, "earshot_jobs", "Jobs by kind and state (queued, running, waiting for the model); counted up to 100,000.", ["kind", "state"]);
  const oldest = gauge(reg, "earshot_jobs_oldest_age_seconds", "Age of the oldest queued job of each kind (0 when none).", ["kind"]);
  for (const { kind, state, backlog } of await jobBacklog(db)) {
    depth.labels(kind, state).set(backlog.count);
    if (state === "queued") oldest.labels(kind).set(ageS(backlog.oldest, nowMs));
  }
  const deliveries = await deliveryBacklog(db);
  gauge(reg, "earshot_webhook_deliveries_backlog", "Webhook deliveries pending or in flight; counted up to 100,000.").set(deliveries.count);
  gauge(reg, "earshot_webhook_deliveries_oldest_age_seconds", "Age of the oldest unfinished webhook delivery (0 when none).").set(
    ageS(deliveries.oldest, nowMs),
  );
  const engine = engineOf(db);
  if (engine.connectionPool) {
    const pool = engine.poolStats(db);
    const conns = gauge(reg, "earshot_postgres_pool_connections", "PostgreSQL pool connections by state (idle, busy) and queries waiting for one (waiting).", [
      "state",
    ]);
    conns.labels("idle").set(pool?.idle ?? 0);
    conns.labels("busy").set(pool ? pool.total - pool.idle : 0);
    conns.labels("waiting").set(pool?.waiting ?? 0);
    gauge(reg, "earshot_postgres_lock_waits", "Backends of this database waiting for a lock.").set(await engine.lockWaits(db));
  } else if (engine.singleFile) {
    const wal = fs.statSync(`${dbFile}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    gauge(reg, "earshot_sqlite_wal_bytes", "Size of the SQLite WAL file (its high-water mark since it was last emptied).").set(wal);
    const last = lastCheckpoint();
    gauge(reg, "earshot_sqlite_checkpoint_lag_frames", "WAL frames the last background checkpoint could not copy yet (readers held them).").set(
      last ? last.walFrames - last.checkpointedFrames : 0,
    );
    gauge(
      reg,
      "earshot_sqlite_last_checkpoint_age_seconds",
      "Seconds since the background checkpointer last finished (-1: it has not run; SQLite checkpoints inside commits until the WAL grows).",
    ).set(last ? (nowMs - last.atMs) / 1000 : -1);
  }
}

/**
 * The exposition text.
 * @param dbFile `config.dbFile`: its WAL is measured when the engine is that one file (SQLite)
 * @throws whatever the database throws (the route answers 503 when it is unreachable)
 */
export async function scrapeMetrics(db: Kysely<Database>, dbFile: string): Promise<string> {
  await startProcessMetrics();
  const scrape = new Registry();
  await databaseGauges(scrape, db, dbFile);
  return Registry.merge([registry, scrape]).metrics();
}
