/**
 * @module outbox/retry-policy
 * What happens after a delivery attempt (DESIGN §8, Svix's model): 2xx succeeds; 410 Gone
 * disables the webhook; any other outcome is retried on the fixed schedule
 * (`EARSHOT_WEBHOOK_RETRY_SCHEDULE_S`, default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) with
 * ±10 % jitter, until the schedule is spent or the webhook has been failing for longer than
 * `EARSHOT_WEBHOOK_DISABLE_AFTER_S`, which disables it. The schedule is the queue skeleton's
 * {@link scheduledBackoff}.
 */
import { scheduledBackoff } from "../queue/durable-queue.ts";

/** Jitter applied to each retry delay: ±10 %. */
export const RETRY_JITTER_RATIO = 0.1;

/** The result of one attempt: an HTTP status, or none when no response came (error set). */
export type AttemptOutcome = { statusCode: number | null; error: string | null };

export type Decision = { state: "succeeded" } | { state: "pending"; retryInS: number } | { state: "failed"; disableReason: string | null };

/** True for a 2xx status: the receiver accepted the event. */
export function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

/**
 * Delay before the next attempt after `failedAttempts` failures, with jitter.
 * @param scheduleS delays in seconds; entry n−1 follows failure n
 * @param random a [0, 1) source (injectable for tests)
 * @returns seconds, or null when the schedule is spent
 */
export function retryDelayS(failedAttempts: number, scheduleS: readonly number[], random: () => number = Math.random): number | null {
  return scheduledBackoff(scheduleS, RETRY_JITTER_RATIO, random)(failedAttempts);
}

/**
 * Decides a delivery's next state after attempt number `attempt` (1-based).
 * @param failingForS how long the webhook has been failing, in seconds, including this attempt (0 when it was healthy)
 */
export function decideAfterAttempt(
  outcome: AttemptOutcome,
  attempt: number,
  failingForS: number,
  policy: { scheduleS: readonly number[]; disableAfterS: number },
  random: () => number = Math.random,
): Decision {
  if (isSuccess(outcome.statusCode)) return { state: "succeeded" };
  if (outcome.statusCode === 410) {
    return { state: "failed", disableReason: "The receiver answered 410 Gone." };
  }
  if (failingForS > policy.disableAfterS) {
    return { state: "failed", disableReason: `Every delivery failed for more than ${policy.disableAfterS} seconds.` };
  }
  const retryInS = retryDelayS(attempt, policy.scheduleS, random);
  return retryInS === null ? { state: "failed", disableReason: null } : { state: "pending", retryInS };
}
