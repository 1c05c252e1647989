/**
 * @module retention/housekeeping
 * Retention's periodic run (issue 25; docs/privacy.md "Retention"): hourly at minute 47, as a
 * periodic job of the one scheduler (src/jobs/scheduler.ts, listed in src/periodic.ts), so on
 * several nodes one node runs each hour's run; the run lease in `settings` still keeps two runs
 * from overlapping (a slow run past the next hour).
 */
import type { PeriodicTask } from "../../jobs/scheduler.ts";
import { runRetention, type RetentionDeps } from "./service.ts";

const MINUTE_MS = 60_000;

/** Retention's task: every hour, at minute 47. A failed run is retried by the queue. */
export function retentionTask(deps: RetentionDeps): PeriodicTask {
  return { name: "retention", everyMs: 60 * MINUTE_MS, offsetMs: 47 * MINUTE_MS, run: () => runRetention(deps) };
}
