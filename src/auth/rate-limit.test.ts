/**
 * Per-key rate limits (DESIGN §4) with the clock passed in: windows open and close without
 * sleeping. On PostgreSQL (DESIGN §11) the window is shared by every node: limiters on separate
 * connections, as three nodes have, let exactly N requests of a minute through between them.
 */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createManualClock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { dropTestDatabase, onPostgres, openTestDatabase } from "../../test/helpers/db.ts";
import { createRateLimiter, type RateLimiter } from "./rate-limit.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function nodes(n: number): Promise<Db[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-rate-"));
  const dbs: Db[] = [];
  for (let i = 0; i < n; i++) dbs.push(await openTestDatabase(dir));
  cleanups.push(async () => {
    for (const db of dbs) await db.destroy();
    await dropTestDatabase(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dbs;
}

/** Takes `count` requests at once spread over the limiters; @returns how many were allowed. */
async function burst(limiters: RateLimiter[], key: string, limit: number, count: number): Promise<number> {
  const decisions = await Promise.all(Array.from({ length: count }, (_, i) => limiters[i % limiters.length]!.take(key, limit)));
  return decisions.filter((d) => d.allowed).length;
}

test("a window lets `limit` requests through, then 429 headers until it ends (memory, no sleeping)", () => {
  const clock = createManualClock();
  const limiter = createRateLimiter({ clock });
  for (let i = 0; i < 30; i++) expect(limiter.take("k", 30).allowed).toBe(true);
  clock.advance(20_000);
  const refused = limiter.take("k", 30);
  expect(refused).toEqual({ allowed: false, headers: { "RateLimit-Limit": "30", "RateLimit-Remaining": "0", "RateLimit-Reset": "40", "Retry-After": "40" } });
  expect(limiter.take("other", 30).allowed).toBe(true);
  clock.advance(40_000);
  expect(limiter.take("k", 30)).toMatchObject({ allowed: true, headers: { "RateLimit-Remaining": "29", "RateLimit-Reset": "60" } });
});

test.skipIf(!onPostgres)(
  "three nodes share one window: exactly 30 of 90 concurrent requests pass, and the next minute opens again (PostgreSQL only: nodes share the window in the database)",
  async () => {
    const clock = createManualClock();
    const limiters = (await nodes(3)).map((db) => createRateLimiter({ db, clock }));
    expect(await burst(limiters, "token-a", 30, 90)).toBe(30);
    const refused = await limiters[1]!.take("token-a", 30);
    expect(refused.headers).toMatchObject({ "RateLimit-Remaining": "0", "Retry-After": "60" });
    expect(await burst(limiters, "token-b", 30, 10)).toBe(10); // another key has its own window
    clock.advance(60_000);
    expect(await burst(limiters, "token-a", 30, 45)).toBe(30);
  },
);

test.skipIf(onPostgres)("the limiter stays in memory (SQLite only: one process serves the appliance)", async () => {
  const [db] = await nodes(1);
  const limiter = createRateLimiter({ db: db! });
  expect(limiter.take("k", 1)).toMatchObject({ allowed: true }); // answered synchronously: no database round trip
  expect(await db!.selectFrom("rate_limit_windows").selectAll().execute()).toEqual([]);
});
