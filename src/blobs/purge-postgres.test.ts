/**
 * The intake housekeeping on PostgreSQL (docs/operations.md "Housekeeping"): blobs in the database
 * that no answer references, and blobs a crashed writer left incomplete, are deleted once older
 * than an hour; referenced and recent ones stay. Only on the PostgreSQL run (the blobs are files on SQLite,
 * src/modules/intake/limits.test.ts covers those).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { onPostgres } from "../../test/helpers/db.ts";
import { formatMicros } from "../clock.ts";
import { createLogger } from "../logger.ts";
import { purgeIntake, purgeIntakeAtStart } from "../modules/intake/purge.ts";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
let api: TestApi;
beforeAll(async () => {
  if (onPostgres) api = await createTestApi();
});
afterAll(async () => {
  if (onPostgres) await api.close();
});

test.skipIf(!onPostgres)(
  "abandoned sessions' blobs, unreferenced and incomplete blobs in PostgreSQL older than an hour are purged; referenced and recent ones stay (PostgreSQL only: the blob store in the database)",
  async () => {
    const blobs = api.deps.blobs;
    expect(blobs.kind).toBe("postgres");
    const link = (await api.call("POST", "/api/v1/links/", { body: { name: "Files", questions: [{ prompt: "Attach", type: "file_upload" }] } })).json;
    const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}/sessions/`;
    const sid = (await api.call("POST", base, { key: null, body: {} })).json.session_id;
    const form = new FormData();
    form.append("file", new Blob([PNG], { type: "image/png" }), "shot.png");
    expect(
      (await api.app.handle(new Request(`http://localhost${base}${sid}/answers/${link.questions[0].uuid}/file/`, { method: "POST", body: form }))).status,
    ).toBe(200);
    expect((await api.call("POST", `${base}${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
    const referenced = (await api.db.selectFrom("answers").select("file_blob").where("file_blob", "is not", null).executeTakeFirstOrThrow()).file_blob!;
    // An abandoned session (never submitted, untouched for 40 days) with its file.
    const abandonedSid = (await api.call("POST", base, { key: null, body: {} })).json.session_id;
    expect(
      (await api.app.handle(new Request(`http://localhost${base}${abandonedSid}/answers/${link.questions[0].uuid}/file/`, { method: "POST", body: form })))
        .status,
    ).toBe(200);
    const abandoned = await api.db.selectFrom("responses").select("uuid").where("session_id", "=", abandonedSid).executeTakeFirstOrThrow();
    const abandonedBlob = (await api.db.selectFrom("answers").select("file_blob").where("response_uuid", "=", abandoned.uuid).executeTakeFirstOrThrow())
      .file_blob!;
    const fortyDaysAgo = formatMicros(BigInt(Date.now() - 40 * 86_400_000) * 1000n);
    await api.db.updateTable("responses").set({ date_updated: fortyDaysAgo, date_created: fortyDaysAgo }).where("uuid", "=", abandoned.uuid).execute();
    await api.db.updateTable("answers").set({ date_updated: fortyDaysAgo }).where("response_uuid", "=", abandoned.uuid).execute();

    const now = Date.now();
    const twoHoursAgo = formatMicros(BigInt(now - 2 * 3600_000) * 1000n);
    const orphanOld = await blobs.put("audio", new Uint8Array(10));
    const orphanNew = await blobs.put("audio", new Uint8Array(10));
    const incompleteOld = `audio/${crypto.randomUUID()}`;
    const incompleteNew = `audio/${crypto.randomUUID()}`;
    await sql`insert into blobs (key, size, chunks, complete, date_created) values (${incompleteOld}, 0, 0, 0, ${twoHoursAgo}), (${incompleteNew}, 0, 0, 0, ${formatMicros(BigInt(now) * 1000n)})`.execute(
      api.db,
    );
    await sql`update blobs set date_created = ${twoHoursAgo} where key in (${orphanOld}, ${referenced})`.execute(api.db);

    const report = await purgeIntake({ db: api.db, blobs, log: createLogger("silent"), blobsDir: api.config.blobsDir }, { retentionDays: 30, nowMs: now });
    expect(report).toEqual({ sessions: 1, blobs: 1, orphans: 1, tmp: 1 });
    expect(await blobs.size(abandonedBlob)).toBeNull();
    const left = (await sql<{ key: string }>`select key from blobs order by key`.execute(api.db)).rows.map((r) => r.key);
    expect(left.sort()).toEqual([referenced, orphanNew, incompleteNew].sort());
    expect(await blobs.get(referenced)).toEqual(PNG);
  },
);

test.skipIf(!onPostgres)(
  "the start-up purge leaves a blob that is being written (another node's upload, or one accepted as this node started) (PostgreSQL only: the blob store in the database)",
  async () => {
    // A writer that began two seconds ago, as another node (or this node's first upload, timed by
    // src/clock.ts's clock, which may lag Date.now() by up to a second) would have.
    const key = `audio/${crypto.randomUUID()}`;
    await sql`insert into blobs (key, size, chunks, complete, date_created) values (${key}, 0, 0, 0, ${formatMicros(BigInt(Date.now() - 2000) * 1000n)})`.execute(
      api.db,
    );
    await purgeIntakeAtStart({ db: api.db, blobs: api.deps.blobs, log: createLogger("silent"), blobsDir: api.config.blobsDir }, 30, Date.now());
    const left = (await sql<{ key: string }>`select key from blobs where key = ${key}`.execute(api.db)).rows;
    expect(left).toHaveLength(1);
  },
);
