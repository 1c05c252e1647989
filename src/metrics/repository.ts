/**
 * @module metrics/repository
 * The bounded queries `/metrics` runs at scrape time (DESIGN §14): each reads at most
 * {@link SCAN_CAP} rows of one indexed state, so a scrape stays cheap however deep a backlog grows
 * (a depth at the cap means "at least").
 */
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";

/** Rows one backlog query reads at most. */
export const SCAN_CAP = 100_000;

export const JOB_KINDS = ["transcribe", "analyse"] as const;
export const JOB_STATES = ["queued", "running", "waiting"] as const;

/** Jobs of one kind in one state: how many (≤ cap) and the oldest's creation time (ISO), or null. */
export type Backlog = { count: number; oldest: string | null };

function backlogOf(rows: { n: number | string | bigint; oldest: string | null } | undefined): Backlog {
  return { count: Number(rows?.n ?? 0), oldest: rows?.oldest ?? null };
}

/** The job backlog by kind and state (queued = due or scheduled, running, waiting = for its model). */
export async function jobBacklog(db: Kysely<Database>): Promise<{ kind: string; state: string; backlog: Backlog }[]> {
  const out: { kind: string; state: string; backlog: Backlog }[] = [];
  for (const kind of JOB_KINDS) {
    for (const state of JOB_STATES) {
      const row = await db
        .selectFrom((eb) => eb.selectFrom("jobs").select("date_created").where("state", "=", state).where("kind", "=", kind).limit(SCAN_CAP).as("j"))
        .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<string | null>("date_created").as("oldest")])
        .executeTakeFirst();
      out.push({ kind, state, backlog: backlogOf(row) });
    }
  }
  return out;
}

/** Webhook deliveries not yet finished (pending or being delivered): how many and the oldest. */
export async function deliveryBacklog(db: Kysely<Database>): Promise<Backlog> {
  const row = await db
    .selectFrom((eb) => eb.selectFrom("webhook_deliveries").select("date_created").where("state", "in", ["pending", "delivering"]).limit(SCAN_CAP).as("d"))
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<string | null>("date_created").as("oldest")])
    .executeTakeFirst();
  return backlogOf(row);
}
