/**
 * The fair choice's ranking (docs/webhooks.md, "Fairness") on rows as the claim reads them; the
 * claim over a real database is tested in test/integration/webhooks-fairness.test.ts.
 */
import { expect, test } from "bun:test";
import { chooseFairly, type QueueRow } from "./fair-choice.ts";

const NOW = "2026-11-23T08:00:00.000000Z";
const at = (s: number) => `2026-11-23T07:59:${String(s).padStart(2, "0")}.000000Z`;
const pending = (uuid: string, hook: string, ws: string, due: number): QueueRow => ({
  uuid,
  webhook_uuid: hook,
  workspace_uuid: ws,
  state: "pending",
  next_attempt_at: at(due),
  lease_until: null,
});
const leased = (uuid: string, hook: string, ws: string, leaseUntil: string): QueueRow => ({
  ...pending(uuid, hook, ws, 0),
  state: "delivering",
  lease_until: leaseUntil,
});

test("round-robin: every workspace's first before any second, inside one every webhook's first; oldest first among equals", () => {
  const rows = [
    pending("a1-1", "a1", "A", 1),
    pending("a1-2", "a1", "A", 2),
    pending("a2-1", "a2", "A", 5),
    pending("b1-1", "b1", "B", 9),
    pending("b1-2", "b1", "B", 10),
  ];
  const limits = { limit: 10, perWebhook: 2, perWorkspace: 3 };
  // Workspace slot 1: a1-1 (A) and b1-1 (B), the older first; slot 2: A's second webhook's first
  // (a2-1) before B's webhook's second (b1-2); slot 3: a1-2 (B has nothing left).
  expect(chooseFairly(rows, NOW, limits)).toEqual(["a1-1", "b1-1", "a2-1", "b1-2", "a1-2"]);
  expect(chooseFairly(rows, NOW, { ...limits, limit: 2 })).toEqual(["a1-1", "b1-1"]);
});

test("live leases count against both caps; an expired lease is claimable again, in due order", () => {
  const live = "2026-11-23T08:00:30.000000Z";
  const expired = "2026-11-23T07:59:30.000000Z";
  const rows = [
    leased("a1-live", "a1", "A", live),
    leased("a1-expired", "a1", "A", expired),
    pending("a1-next", "a1", "A", 3),
    leased("b1-live", "b1", "B", live),
    leased("b2-live", "b2", "B", live),
    pending("b3-1", "b3", "B", 1),
    // A lease ending exactly now is still live.
    leased("c1-now", "c1", "C", NOW),
    pending("c1-1", "c1", "C", 1),
  ];
  // a1: one live lease, so one slot, taken by the expired lease (due earlier than a1-next).
  // B: two live leases against a cap of 2. c1: its lease is live, one slot left. Both second
  // slots of their workspace and webhook: the older due time first.
  expect(chooseFairly(rows, NOW, { limit: 10, perWebhook: 2, perWorkspace: 2 })).toEqual(["a1-expired", "c1-1"]);
});

test("ties on the due time go by uuid; no limit, no claim", () => {
  const rows = [pending("z", "h", "W", 1), pending("m", "h", "W", 1), pending("a", "h", "W", 2)];
  expect(chooseFairly(rows, NOW, { limit: 5, perWebhook: 2, perWorkspace: 4 })).toEqual(["m", "z"]);
  expect(chooseFairly(rows, NOW, { limit: 0, perWebhook: 2, perWorkspace: 4 })).toEqual([]);
});
