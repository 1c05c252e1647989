import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropTestDatabase, onPostgres, openTestDatabase } from "../../test/helpers/db.ts";
import { createManualClock } from "../clock.ts";
import { createLoginThrottle, LOGIN_WINDOW_MS, MAX_FAILURES_PER_ACCOUNT } from "./login-throttle.ts";

describe("login throttle", () => {
  test("an attempt counts from its start; success takes it back and forgets the account's failures", () => {
    const t = createLoginThrottle();
    const begun = Array.from({ length: MAX_FAILURES_PER_ACCOUNT }, () => t.begin("a@x", "10.0.0.1", 1_000));
    expect(begun.every((b) => "attempt" in b)).toBe(true);
    // Five checks in flight: a sixth waits, even before any of them finished.
    expect(t.begin("a@x", "10.0.0.2", 1_000)).toEqual({ retryAfterS: LOGIN_WINDOW_MS / 1000 });
    (begun[0] as { attempt: { succeeded(): void } }).attempt.succeeded();
    expect("attempt" in t.begin("a@x", "10.0.0.2", 1_000)).toBe(true);
  });

  test("keys whose failures left the window are swept, not kept forever", () => {
    const t = createLoginThrottle();
    for (let i = 0; i < 1_000; i++) t.begin(`guess${i}@x`, `10.0.${i >> 8}.${i & 255}`, 1_000);
    expect(t.size()).toBe(2_000);
    // One attempt after the window from elsewhere: the old keys go, only its two stay.
    t.begin("late@x", "10.9.9.9", 1_000 + LOGIN_WINDOW_MS + 1);
    expect(t.size()).toBe(2);
  });
});

describe("login throttle shared by several nodes (PostgreSQL)", () => {
  test.skipIf(!onPostgres)(
    "40 concurrent guesses over three nodes get 5 checks; success and time reopen the account (PostgreSQL only: several nodes on one database)",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-throttle-"));
      const dbs = [await openTestDatabase(dir), await openTestDatabase(dir), await openTestDatabase(dir)];
      try {
        const clock = createManualClock();
        const nodes = dbs.map((db) => createLoginThrottle({ db, clock }));
        const begun = await Promise.all(Array.from({ length: 40 }, (_, i) => nodes[i % 3]!.begin("a@x", `10.0.0.${i}`)));
        const granted = begun.filter((b) => "attempt" in b) as { attempt: { succeeded(): void | Promise<void> } }[];
        expect(granted.length).toBe(MAX_FAILURES_PER_ACCOUNT);
        expect(begun.find((b) => "retryAfterS" in b)).toEqual({ retryAfterS: LOGIN_WINDOW_MS / 1000 });
        await granted[0]!.attempt.succeeded(); // the right password: the account's failures are forgotten
        expect("attempt" in (await nodes[2]!.begin("a@x", "10.0.1.1"))).toBe(true);
        // 20 failures from one address close it for every account, on every node.
        for (let i = 0; i < 20; i++) expect("attempt" in (await nodes[i % 3]!.begin(`user${i}@x`, "10.9.9.9"))).toBe(true);
        expect("retryAfterS" in (await nodes[1]!.begin("someone-else@x", "10.9.9.9"))).toBe(true);
        clock.advance(LOGIN_WINDOW_MS);
        expect("attempt" in (await nodes[0]!.begin("someone-else@x", "10.9.9.9"))).toBe(true);
      } finally {
        for (const db of dbs) await db.destroy();
        await dropTestDatabase(dir);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
