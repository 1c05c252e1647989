/**
 * @module queue/fair-choice
 * The fair choice of which due deliveries the webhook outbox claims (docs/webhooks.md,
 * "Fairness"), ranked in memory over the few rows the claim reads (src/outbox/repository.ts):
 * each webhook's first due deliveries and every delivery in flight. It lives with the queue
 * mechanics because it is pure: no database, no feature. Written as one SQL statement (window
 * ranks over materialised CTEs) it cost SQLite 120–260 µs per claim in automatic indexes and sort
 * trees for one or two rows; here it is a few sorts of a handful of objects.
 */

/** How many deliveries one claim may lease, in total and per webhook / workspace (counting those already in flight). */
export type ClaimLimits = { limit: number; perWebhook: number; perWorkspace: number };

/** A row the choice ranks: a due `pending` delivery, or a `delivering` one (leased; its lease live or expired). */
export type QueueRow = {
  uuid: string;
  webhook_uuid: string;
  workspace_uuid: string;
  state: string;
  /** ISO-8601 UTC; deliveries of one webhook leave in this order. */
  next_attempt_at: string;
  /** ISO-8601 UTC lease end; null for a pending delivery. */
  lease_until: string | null;
};

type Ranked = { row: QueueRow; hookSlot: number };

/** Oldest due first, ties by uuid (the order the caps and the round-robin break ties in). */
function byDue(a: QueueRow, b: QueueRow): number {
  if (a.next_attempt_at !== b.next_attempt_at) return a.next_attempt_at < b.next_attempt_at ? -1 : 1;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/**
 * Chooses what to lease now. A delivery whose lease is live (`lease_until >= now`) is in flight
 * and counts against its webhook's and workspace's caps; pending ones and those whose lease
 * expired are candidates. Each candidate gets a slot in its webhook (its rank there, oldest due
 * first, after the deliveries in flight) and, if that is within `perWebhook`, a slot in its
 * workspace (ranked by webhook slot, then due time, after the workspace's deliveries in flight);
 * those within `perWorkspace` are taken round-robin — every workspace's first slot before any
 * workspace's second, then webhook slot, then due time, then uuid — up to `limit`.
 * @param rows every delivery in flight, and at least each webhook's first `perWebhook` due candidates
 * @param now ISO-8601 UTC, the same clock reading the rows were read with
 * @returns the uuids to lease, in claim order (at most `limit`)
 */
export function chooseFairly(rows: readonly QueueRow[], now: string, limits: ClaimLimits): string[] {
  const busyHook = new Map<string, number>();
  const busyWorkspace = new Map<string, number>();
  const candidates = new Map<string, QueueRow[]>();
  for (const r of rows) {
    if (r.state === "delivering") {
      if (r.lease_until === null) continue;
      if (r.lease_until >= now) {
        busyHook.set(r.webhook_uuid, (busyHook.get(r.webhook_uuid) ?? 0) + 1);
        busyWorkspace.set(r.workspace_uuid, (busyWorkspace.get(r.workspace_uuid) ?? 0) + 1);
        continue;
      }
    }
    push(candidates, r.webhook_uuid, r);
  }
  const byWorkspace = new Map<string, Ranked[]>();
  for (const [hook, list] of candidates) {
    const busy = busyHook.get(hook) ?? 0;
    if (busy >= limits.perWebhook) continue;
    list.sort(byDue);
    for (let i = 0; i < list.length && busy + i < limits.perWebhook; i++) push(byWorkspace, list[i]!.workspace_uuid, { row: list[i]!, hookSlot: busy + i + 1 });
  }
  const fit: (Ranked & { workspaceSlot: number })[] = [];
  for (const [workspace, list] of byWorkspace) {
    const busy = busyWorkspace.get(workspace) ?? 0;
    if (busy >= limits.perWorkspace) continue;
    list.sort((a, b) => a.hookSlot - b.hookSlot || byDue(a.row, b.row));
    for (let i = 0; i < list.length && busy + i < limits.perWorkspace; i++) fit.push({ ...list[i]!, workspaceSlot: busy + i + 1 });
  }
  fit.sort((a, b) => a.workspaceSlot - b.workspaceSlot || a.hookSlot - b.hookSlot || byDue(a.row, b.row));
  return fit.slice(0, Math.max(0, limits.limit)).map((f) => f.row.uuid);
}
