/**
 * `GET /healthz` (console contract): whether each configured model is installed, and the job
 * queue's counts, without authentication.
 */
import { expect, test } from "bun:test";
import path from "node:path";
import { createTestApi } from "../../../test/helpers/api.ts";
import { nowIso } from "../../clock.ts";
import { dialectOf } from "../../db/dialect.ts";
import { FIXTURE_MODELS_DIR as FIXTURE } from "../../../test/helpers/fixtures.ts";
import pkg from "../../../package.json" with { type: "json" };

test("healthz reports the version, the database, installed and missing models and the pending, running and failed job counts", async () => {
  const api = await createTestApi({
    EARSHOT_MODELS_DIR: FIXTURE,
    EARSHOT_ASR_MODEL: "whisper-tiny-random",
    EARSHOT_SENTIMENT_MODEL: "no-such-sentiment-model",
  });
  try {
    const now = nowIso();
    const job = (state: "queued" | "running" | "waiting" | "done" | "failed") => ({
      kind: "transcribe" as const,
      payload: "{}",
      state,
      run_at: now,
      lease_until: null,
      last_error: null,
      date_created: now,
      date_updated: now,
    });
    await api.db
      .insertInto("jobs")
      .values([job("queued"), job("queued"), job("running"), job("waiting"), job("done"), job("failed")])
      .execute();
    const r = await api.call("GET", "/healthz", { key: null });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      status: "ok",
      version: pkg.version,
      database: { kind: dialectOf(api.db), reachable: true },
      models: { asr: { id: "whisper-tiny-random", status: "installed" }, sentiment: { id: "no-such-sentiment-model", status: "missing" } },
      jobs: { pending: 2, running: 1, waiting_for_model: 1, failed: 1 },
    });
  } finally {
    await api.close();
  }
});

test("healthz/live answers without the database; healthz/ready checks the database, the migrations and the worker", async () => {
  const api = await createTestApi();
  try {
    const live = await api.call("GET", "/healthz/live", { key: null });
    expect([live.status, live.json]).toEqual([200, { status: "ok", version: pkg.version }]);
    const ready = await api.call("GET", "/healthz/ready", { key: null });
    expect([ready.status, ready.json]).toEqual([
      200,
      { status: "ready", version: pkg.version, checks: { database: "ok", migrations: "ok", worker: "not_run_here" } },
    ]);
    // A migration this build does not know (a newer version migrated the database): not ready.
    await api.db
      .insertInto("kysely_migration" as never)
      .values({ name: "2099-01-01T0000-from-a-newer-version", timestamp: "2099-01-01T00:00:00.000Z" } as never)
      .execute();
    const newer = await api.call("GET", "/healthz/ready", { key: null });
    expect([newer.status, newer.json.checks.migrations, newer.headers.get("retry-after")]).toEqual([503, "pending", "5"]);
  } finally {
    await api.close();
  }
});
