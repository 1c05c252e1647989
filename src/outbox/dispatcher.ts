/**
 * @module outbox/dispatcher
 * The webhook dispatcher (DESIGN §8): one loop, not a timer per event. It leases due deliveries
 * fairly (at most 2 in flight per webhook and 4 per workspace, round-robin across them, so a
 * receiver that hangs delays only its own events), sends up to `concurrency` at a time, records
 * every attempt, and schedules retries. It polls
 * every `EARSHOT_OUTBOX_POLL_MS` and is nudged when events are queued, so a new event leaves at
 * once. The loop, the leases and the recovery are the shared queue skeleton's
 * (src/queue/durable-queue.ts): on SQLite it releases at start every lease a crashed process left
 * behind; on PostgreSQL (several nodes) a dead node's leases expire after {@link DELIVERY_LEASE_S}
 * and the claim takes them. Delivery is at-least-once and every attempt of an event carries the
 * same `webhook-id`. Delivery logs older than `EARSHOT_DELIVERY_LOG_RETENTION_DAYS` are pruned
 * every hour by a periodic job (src/periodic.ts).
 */
import { readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { engineOf } from "../db/engine.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { createPollingLoop } from "../queue/durable-queue.ts";
import {
  claimDueDeliveries,
  failWithoutAttempt,
  PER_WEBHOOK_IN_FLIGHT,
  PER_WORKSPACE_IN_FLIGHT,
  recordAttemptAndClaim,
  releaseLeases,
  type ClaimedDelivery,
} from "./repository.ts";
import { decideAfterAttempt } from "./retry-policy.ts";
import { sendWebhook, WEBHOOK_TIMEOUT_MS } from "./sender.ts";
import { webhookHeaders } from "./signing.ts";
import { ALERT_EVENT_TYPE, alertRequestOf } from "./alert-request.ts";
import { deliveryAttempts, deliveryDuration } from "../metrics/instruments.ts";

/**
 * Deliveries in flight at once, all webhooks together. Far above the per-workspace cap (4), so
 * it takes 8 workspaces whose receivers all hang at once to fill every slot.
 */
export const DISPATCH_CONCURRENCY = 32;
/**
 * A claimed delivery stays ours this long: three times the send timeout, so only a dead node's
 * lease expires, and another node sends its deliveries again within half a minute.
 */
export const DELIVERY_LEASE_S = 30;
/** Event types that reach a webhook even while it is disabled (so an operator can check it). */
const DELIVERED_WHEN_DISABLED = new Set(["webhook.test"]);

export type DispatcherConfig = Pick<Config, "webhookAllowHosts" | "webhookCaFile" | "webhookRetryScheduleS" | "webhookDisableAfterS" | "outboxPollMs">;

export interface Dispatcher {
  /** Starts the loop (on SQLite, first releasing the leases a crashed process left). */
  start(): Promise<void>;
  /** Look for due deliveries now (call after committing new events). */
  nudge(): void;
  /** Stops claiming and waits for the deliveries in flight (at most one timeout). */
  stop(): Promise<void>;
  /** When the loop last looked for due deliveries (ms), or null while it is not running (readiness). */
  lastTurnMs(): number | null;
}

/**
 * Builds the dispatcher.
 * @param opts.concurrency deliveries in flight (default 32); `perWebhook` (2) and `perWorkspace` (4)
 *   cap them per webhook and per workspace; `timeoutMs` per attempt (default 10 000); `clock` the
 *   time source of leases, retries and upkeep (default the system clock)
 * @throws Error when `webhookCaFile` cannot be read
 */
export function createDispatcher(opts: {
  db: Kysely<Database>;
  log: Logger;
  config: DispatcherConfig;
  concurrency?: number;
  perWebhook?: number;
  perWorkspace?: number;
  timeoutMs?: number;
  leaseS?: number;
  clock?: Clock;
}): Dispatcher {
  const { db, log, config } = opts;
  const clock = opts.clock ?? systemClock;
  const concurrency = opts.concurrency ?? DISPATCH_CONCURRENCY;
  const perWebhook = opts.perWebhook ?? PER_WEBHOOK_IN_FLIGHT;
  const perWorkspace = opts.perWorkspace ?? PER_WORKSPACE_IN_FLIGHT;
  const caPem = config.webhookCaFile ? readFileSync(config.webhookCaFile, "utf8") : null;
  const leaseS = opts.leaseS ?? DELIVERY_LEASE_S;
  const inFlight = new Set<Promise<void>>();
  /** Slots promised to a claim under way (the loop's, or one sharing an attempt's transaction). */
  let claiming = 0;
  let started = false;

  /** Slots free for a new claim; `own` counts the slot of a delivery that is finishing. */
  function freeSlots(own = 0): number {
    return started ? concurrency - inFlight.size - claiming + own : 0;
  }

  /** Claims up to `free` deliveries with `claim` (slots reserved meanwhile) and starts sending them. */
  async function claimInto<T>(free: number, claim: () => Promise<T & { claimed: ClaimedDelivery[] }>): Promise<T> {
    claiming += free;
    let result: T & { claimed: ClaimedDelivery[] };
    try {
      result = await claim();
    } finally {
      claiming -= free;
    }
    for (const c of result.claimed) track(c);
    return result;
  }

  function secretsOf(d: ClaimedDelivery): string[] {
    const previousValid = d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > clock.nowIso();
    return previousValid ? [d.secret, d.previousSecret!] : [d.secret];
  }

  /** Sends `d` and records the attempt. @returns true when the recording also claimed for the slot `d` frees. */
  async function deliver(d: ClaimedDelivery): Promise<boolean> {
    if (!d.enabled && !DELIVERED_WHEN_DISABLED.has(d.eventType)) {
      await failWithoutAttempt(db, d, "The webhook is disabled.", clock);
      return false;
    }
    // An alert message carries its own request (destination format); any other event is a signed webhook.
    const alert = alertRequestOf(d);
    if (!alert && d.eventType === ALERT_EVENT_TYPE) {
      // An erased alert's stub: nothing of it may leave (its delivery was ended by the erasure anyway).
      await failWithoutAttempt(db, d, "The alert's response was erased.", clock);
      return false;
    }
    const headers = alert ? alert.headers : webhookHeaders(secretsOf(d), d.eventUuid, Math.floor(clock.nowMs() / 1000), d.body);
    const endTimer = deliveryDuration.startTimer();
    const result = await sendWebhook(alert?.url ?? d.url, headers, alert?.body ?? d.body, {
      allowHosts: config.webhookAllowHosts,
      caPem,
      timeoutMs: opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      method: alert?.method,
    });
    endTimer();
    const failingForS = d.failingSince ? (clock.nowMs() - Date.parse(d.failingSince)) / 1000 : 0;
    const decision = decideAfterAttempt(result, d.attempts + 1, failingForS, {
      scheduleS: config.webhookRetryScheduleS,
      disableAfterS: config.webhookDisableAfterS,
    });
    const record = {
      ...result,
      state: decision.state,
      nextAttemptAt: decision.state === "pending" ? clock.isoAfter(decision.retryInS) : null,
      disableReason: decision.state === "failed" ? decision.disableReason : null,
    };
    // The claim the finished delivery would nudge the loop into, made while recording (one
    // transaction on SQLite); this delivery's slot is free by then.
    const free = freeSlots(1);
    const next = free > 0 ? { limits: { limit: free, perWebhook, perWorkspace }, leaseS } : null;
    const { recorded } = await claimInto(free, () => recordAttemptAndClaim(db, d, record, next, clock));
    // Counted once recorded: a scrape in between would show a success beside a backlog still
    // holding its delivery (CI caught the metrics test reading exactly that).
    deliveryAttempts.labels(decision.state === "pending" ? "retry" : decision.state).inc();
    const fields = { delivery: d.uuid, event: d.eventUuid, webhook: d.webhookUuid, attempt: d.attempts + 1, status: result.statusCode, state: decision.state };
    if (!recorded) log.warn("webhook attempt not recorded: the delivery was deleted, re-leased or cancelled by an erasure", fields);
    else if (decision.state === "succeeded") log.debug("webhook delivered", fields);
    else log.info("webhook attempt failed", { ...fields, error: result.error });
    if (decision.state === "failed" && decision.disableReason) log.warn("webhook disabled", { webhook: d.webhookUuid, reason: decision.disableReason });
    return next !== null;
  }

  function track(d: ClaimedDelivery): void {
    let claimedForSlot = false;
    const p: Promise<void> = deliver(d)
      .then((claimed) => {
        claimedForSlot = claimed;
      })
      .catch((err) => log.error("webhook delivery crashed", { delivery: d.uuid, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }))
      .finally(() => {
        inFlight.delete(p);
        if (!claimedForSlot) loop.nudge();
      });
    inFlight.add(p);
  }

  // With every slot busy (or every due delivery's webhook at its cap), a finished delivery
  // claims again: while recording its attempt, or else by nudging the loop.
  const loop = createPollingLoop({
    name: "webhook dispatcher",
    pollMs: config.outboxPollMs,
    log,
    clock,
    async step() {
      const free = freeSlots();
      if (free <= 0) return false;
      await claimInto(free, async () => ({ claimed: await claimDueDeliveries(db, { limit: free, perWebhook, perWorkspace }, leaseS, clock) }));
      return false;
    },
  });

  return {
    async start() {
      if (started) return;
      started = true;
      // One SQLite process owns the outbox; on PostgreSQL other nodes may hold live leases.
      if (engineOf(db).singleProcess) {
        const released = await releaseLeases(db, false, clock);
        if (released) log.info("released webhook deliveries interrupted by a restart", { count: released });
      }
      loop.start();
    },
    nudge() {
      loop.nudge();
    },
    lastTurnMs: () => loop.lastTurnMs(),
    async stop() {
      started = false;
      await loop.stop();
      await Promise.all([...inFlight]);
    },
  };
}
