/**
 * @module outbox/dispatcher
 * The webhook dispatcher (DESIGN §8): one loop, not a timer per event. It leases due deliveries
 * fairly (at most 2 in flight per webhook and 4 per workspace, round-robin across them, so a
 * receiver that hangs delays only its own events), sends up to `concurrency` at a time, records
 * every attempt, and schedules retries. It polls
 * every `EARSHOT_OUTBOX_POLL_MS` and is nudged when events are queued, so a new event leaves at
 * once. At start it releases every lease a crashed process left behind; delivery is
 * at-least-once and every attempt of an event carries the same `webhook-id`.
 */
import { readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import { isoAfter, nowIso } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import {
  claimDueDeliveries,
  failWithoutAttempt,
  PER_WEBHOOK_IN_FLIGHT,
  PER_WORKSPACE_IN_FLIGHT,
  recordAttempt,
  releaseLeases,
  type ClaimedDelivery,
} from "./repository.ts";
import { decideAfterAttempt } from "./retry-policy.ts";
import { sendWebhook, WEBHOOK_TIMEOUT_MS } from "./sender.ts";
import { webhookHeaders } from "./signing.ts";

/**
 * Deliveries in flight at once, all webhooks together. Far above the per-workspace cap (4), so
 * it takes 8 workspaces whose receivers all hang at once to fill every slot.
 */
export const DISPATCH_CONCURRENCY = 32;
/** A claimed delivery stays ours this long; far above the send timeout, so only a crash expires it. */
export const DELIVERY_LEASE_S = 120;
/** Event types that reach a webhook even while it is disabled (so an operator can check it). */
const DELIVERED_WHEN_DISABLED = new Set(["webhook.test"]);

export type DispatcherConfig = Pick<
  Config,
  "webhookAllowHosts" | "webhookCaFile" | "webhookRetryScheduleS" | "webhookDisableAfterS" | "outboxPollMs"
>;

export interface Dispatcher {
  /** Releases stale leases and starts the loop. */
  start(): Promise<void>;
  /** Look for due deliveries now (call after committing new events). */
  nudge(): void;
  /** Stops claiming and waits for the deliveries in flight (at most one timeout). */
  stop(): Promise<void>;
}

/**
 * Builds the dispatcher.
 * @param opts.concurrency deliveries in flight (default 32); `perWebhook` (2) and `perWorkspace` (4)
 *   cap them per webhook and per workspace; `timeoutMs` per attempt (default 10 000)
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
}): Dispatcher {
  const { db, log, config } = opts;
  const concurrency = opts.concurrency ?? DISPATCH_CONCURRENCY;
  const perWebhook = opts.perWebhook ?? PER_WEBHOOK_IN_FLIGHT;
  const perWorkspace = opts.perWorkspace ?? PER_WORKSPACE_IN_FLIGHT;
  const caPem = config.webhookCaFile ? readFileSync(config.webhookCaFile, "utf8") : null;
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  /** Set by a nudge or a finished delivery; makes the loop look again instead of sleeping. */
  let signaled = false;

  function signal(): void {
    signaled = true;
    wake?.();
  }

  function secretsOf(d: ClaimedDelivery): string[] {
    const previousValid = d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > nowIso();
    return previousValid ? [d.secret, d.previousSecret!] : [d.secret];
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    if (!d.enabled && !DELIVERED_WHEN_DISABLED.has(d.eventType)) {
      await failWithoutAttempt(db, d, "The webhook is disabled.");
      return;
    }
    const headers = webhookHeaders(secretsOf(d), d.eventUuid, Math.floor(Date.now() / 1000), d.body);
    const result = await sendWebhook(d.url, headers, d.body, { allowHosts: config.webhookAllowHosts, caPem, timeoutMs: opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS });
    const failingForS = d.failingSince ? (Date.now() - Date.parse(d.failingSince)) / 1000 : 0;
    const decision = decideAfterAttempt(result, d.attempts + 1, failingForS, { scheduleS: config.webhookRetryScheduleS, disableAfterS: config.webhookDisableAfterS });
    const recorded = await recordAttempt(db, d, {
      ...result,
      state: decision.state,
      nextAttemptAt: decision.state === "pending" ? isoAfter(decision.retryInS) : null,
      disableReason: decision.state === "failed" ? decision.disableReason : null,
    });
    const fields = { delivery: d.uuid, event: d.eventUuid, webhook: d.webhookUuid, attempt: d.attempts + 1, status: result.statusCode, state: decision.state };
    if (!recorded) log.warn("webhook attempt not recorded: the delivery was deleted, re-leased or cancelled by an erasure", fields);
    else if (decision.state === "succeeded") log.debug("webhook delivered", fields);
    else log.info("webhook attempt failed", { ...fields, error: result.error });
    if (decision.state === "failed" && decision.disableReason) log.warn("webhook disabled", { webhook: d.webhookUuid, reason: decision.disableReason });
  }

  function track(d: ClaimedDelivery): void {
    const p: Promise<void> = deliver(d)
      .catch((err) => log.error("webhook delivery crashed", { delivery: d.uuid, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }))
      .finally(() => {
        inFlight.delete(p);
        signal();
      });
    inFlight.add(p);
  }

  async function sleep(ms: number): Promise<void> {
    if (signaled) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
  }

  async function run(): Promise<void> {
    while (running) {
      signaled = false;
      const free = concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await claimDueDeliveries(db, { limit: free, perWebhook, perWorkspace }, opts.leaseS ?? DELIVERY_LEASE_S);
        } catch (err) {
          log.error("webhook claim failed", { error: String(err) });
        }
        for (const d of claimed) track(d);
      }
      // With every slot busy (or every due delivery's webhook at its cap), a finished delivery
      // signals the loop to claim again.
      await sleep(config.outboxPollMs);
    }
  }

  return {
    async start() {
      if (running) return;
      const released = await releaseLeases(db, false);
      if (released) log.info("released webhook deliveries interrupted by a restart", { count: released });
      running = true;
      loop = run();
    },
    nudge() {
      signal();
    },
    async stop() {
      running = false;
      signal();
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}
