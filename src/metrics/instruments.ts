/**
 * @module metrics/instruments
 * The process's Prometheus instruments (DESIGN §14), through `prom-client`: one registry per
 * process, as the counters are the process's own (a test process that builds several apps sees
 * their sum; tests compare values before and after the work they cause). Recording is a few
 * property writes; everything that needs the database is computed at scrape time
 * (metrics/collect.ts), so no instrument here ever waits for I/O.
 */
import { Counter, Histogram, Registry } from "./client.ts";

/** The registry `GET /metrics` serialises. */
export const registry = new Registry();

/** Latency buckets for HTTP requests, seconds: 1 ms … 10 s. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** Buckets for inference and deliveries, seconds: 10 ms … 5 min. */
const WORK_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** `earshot_http_requests_total` and `earshot_http_request_duration_seconds`, by route template, method and status class. */
export const httpRequestDuration = new Histogram({
  name: "earshot_http_request_duration_seconds",
  help: 'Time to the response head of HTTP requests, by route template (unmatched paths: route="unmatched"), method and status class (2xx…5xx).',
  labelNames: ["route", "method", "status_class"] as const,
  buckets: HTTP_BUCKETS,
  registers: [registry],
});

export const intakeSessionsStarted = new Counter({
  name: "earshot_intake_sessions_started_total",
  help: "Intake sessions started by respondents.",
  registers: [registry],
});

export const intakeSessionsSubmitted = new Counter({
  name: "earshot_intake_sessions_submitted_total",
  help: "Intake sessions submitted (completed) by respondents.",
  registers: [registry],
});

export const jobsFinished = new Counter({
  name: "earshot_jobs_finished_total",
  help: "Job runs by kind and outcome: done, retry (failed, will run again), failed (given up), waiting (parked until its model is installed), lost (another claimer has it).",
  labelNames: ["kind", "outcome"] as const,
  registers: [registry],
});

export const transcriptionDuration = new Histogram({
  name: "earshot_transcription_duration_seconds",
  help: "Wall time of one recording's transcription in the inference worker.",
  buckets: WORK_BUCKETS,
  registers: [registry],
});

export const transcriptionRealTimeFactor = new Histogram({
  name: "earshot_transcription_real_time_factor",
  help: "Transcription time divided by the recording's duration (below 1: faster than real time).",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
  registers: [registry],
});

export const analysisDuration = new Histogram({
  name: "earshot_analysis_duration_seconds",
  help: "Wall time of one answer's analysis (insights) in the inference worker.",
  buckets: WORK_BUCKETS,
  registers: [registry],
});

export const deliveryAttempts = new Counter({
  name: "earshot_webhook_delivery_attempts_total",
  help: "Webhook delivery attempts by outcome: succeeded, retry (failed, will be retried), failed (given up or the webhook disabled).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const deliveryDuration = new Histogram({
  name: "earshot_webhook_delivery_duration_seconds",
  help: "Time of one webhook delivery attempt (request sent to answer or failure).",
  buckets: WORK_BUCKETS,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: "earshot_rate_limit_refusals_total",
  help: "Requests refused with 429 by the API rate limits: limit=api_key (a key's requests per minute), account (a console user's), sign_in (failed sign-ins).",
  labelNames: ["limit"] as const,
  registers: [registry],
});

export const intakeLimitRefusals = new Counter({
  name: "earshot_intake_limit_refusals_total",
  help: "Public intake requests refused with 429 by a respondent limit: session_start, upload, probe, address_upload_budget, live_socket.",
  labelNames: ["limit"] as const,
  registers: [registry],
});

let processMetricsStarted = false;

/**
 * Adds the process metrics (CPU, RSS, open files, heap, event-loop lag) to the registry, once per
 * process: at the first scrape, so an appliance nobody scrapes carries none of it (the event-loop
 * lag and GC figures then cover the time since the first scrape; CPU and memory are the process's
 * own totals either way). The event-loop delay monitor samples every 100 ms rather than prom-client's 10 ms: an
 * idle appliance should not wake a hundred times a second for a metric scraped every 15 s.
 */
export async function startProcessMetrics(): Promise<void> {
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  // Loaded here, not at start: its monitors and observers cost ~1 MB of idle RSS.
  const { default: collectDefaultMetrics } = await import("prom-client/lib/defaultMetrics");
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  // Node's libuv handle, request and resource counts: Bun has no such thing (always 0), and they are
  // gauges named `_total`, which `promtool check metrics` rejects.
  for (const name of [
    "nodejs_active_handles",
    "nodejs_active_handles_total",
    "nodejs_active_requests",
    "nodejs_active_requests_total",
    "nodejs_active_resources",
    "nodejs_active_resources_total",
  ]) {
    registry.removeSingleMetric(name);
  }
}
