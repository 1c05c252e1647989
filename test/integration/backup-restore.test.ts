/**
 * `earshot backup FILE`, `backup --verify FILE` and `earshot restore FILE --data DIR` (DESIGN §2,
 * §14; issue 22 item 4; docs/operations.md "Backup and restore"), with real processes over real
 * sockets: a backup taken while clients submit voice and file answers (and erase responses) is
 * restored into a new data directory, a server is started on it, and every response the snapshot
 * holds is there with every recording and file downloading byte for byte as it was sent.
 * On PostgreSQL the blobs are in the database: `earshot backup` refuses and names pg_dump.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/db/client.ts";
import { writeBackup } from "../../src/commands/backup-archive.ts";
import { HOLD_FILE, HOLD_FRESH_MS } from "../../src/blobs/hold.ts";
import { dropTestDatabase, onPostgres } from "../helpers/db.ts";
import { type RunningServer, runCli, startServer } from "../helpers/process.ts";

const dirs: string[] = [];
const servers: RunningServer[] = [];
const tempDir = (name: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `earshot-backup-${name}-`));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) await dropTestDatabase(d);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A distinct 0.25 s WAV (8 kHz, 16-bit mono noise): every recording differs from every other. */
function wav(): Uint8Array<ArrayBuffer> {
  const samples = 2000;
  const out = new Uint8Array(44 + samples * 2);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  v.setUint32(4, 36 + samples * 2, true);
  ascii(8, "WAVEfmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, 8000, true);
  v.setUint32(28, 16000, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  ascii(36, "data");
  v.setUint32(40, samples * 2, true);
  crypto.getRandomValues(out.subarray(44));
  return out;
}

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
/** A distinct PNG of about `bytes` (random bytes after IEND, which viewers and the sniffer ignore). */
function png(bytes: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(PNG.length + bytes);
  out.set(PNG);
  crypto.getRandomValues(out.subarray(PNG.length, PNG.length + Math.min(bytes, 65536)));
  for (let at = PNG.length + 65536; at < out.length; at += 65536) crypto.getRandomValues(out.subarray(at, Math.min(out.length, at + 65536)));
  return out;
}

type Sent = { audio: Uint8Array<ArrayBuffer>; file: Uint8Array<ArrayBuffer> | null };

/** An appliance with a voice + file link, and a client that submits to it. */
async function appliance(name: string) {
  const dataDir = tempDir(name);
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", name, "--plan", "enterprise", "--json"], { dataDir })).stdout);
  expect((await runCli(["workspace", "update", ws.workspace_uuid, "--requests-per-minute", "100000"], { dataDir })).code).toBe(0);
  const server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1", EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" } });
  servers.push(server);
  const auth = { authorization: `Bearer ${ws.api_key}` };
  const link = await (
    await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        name,
        questions: [
          { prompt: "Say it", type: "voice" },
          { prompt: "Attach", type: "file_upload" },
        ],
      }),
    })
  ).json();
  const base = `${server.baseUrl}/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const json = { "content-type": "application/json" };
  const sent = new Map<string, Sent>();
  /** One respondent: a recording, a file (unless `fileBytes` is 0), submit. @returns the response uuid */
  const respond = async (fileBytes: number): Promise<string> => {
    const s = await (await fetch(base, { method: "POST", headers: json, body: "{}" })).json();
    const record: Sent = { audio: wav(), file: null };
    sent.set(s.response_uuid, record); // from here on it may be in a snapshot
    const a = await fetch(`${base}${s.session_id}/answers/${link.questions[0].uuid}/audio/`, {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: record.audio,
    });
    expect(a.status).toBe(200);
    if (fileBytes > 0) {
      const bytes = png(fileBytes);
      const form = new FormData();
      form.append("file", new Blob([bytes], { type: "image/png" }), "shot.png");
      const f = await fetch(`${base}${s.session_id}/answers/${link.questions[1].uuid}/file/`, { method: "POST", body: form });
      expect(f.status).toBe(200);
      record.file = bytes;
    }
    expect((await fetch(`${base}${s.session_id}/submit/`, { method: "POST", headers: json, body: "{}" })).status).toBe(200);
    return s.response_uuid;
  };
  const erase = async (uuid: string) =>
    expect((await fetch(`${server.baseUrl}/api/v1/responses/${uuid}/`, { method: "DELETE", headers: auth })).status).toBe(200);
  return { dataDir, ws, server, link, sent, respond, erase, auth };
}

/**
 * Starts a server on `dataDir` and checks every response it has: each was sent by the client, and
 * each recording and file downloads with the bytes sent (except the recordings of `erased`
 * responses, which answer 404). @returns the response uuids
 */
async function checkRestored(dataDir: string, linkUuid: string, apiKey: string, sent: Map<string, Sent>, erased = new Set<string>()): Promise<string[]> {
  const server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
  servers.push(server);
  const auth = { authorization: `Bearer ${apiKey}` };
  const uuids: string[] = [];
  for (let page = 1; ; page++) {
    const list = await (await fetch(`${server.baseUrl}/api/v1/links/${linkUuid}/responses/?status=all&page_size=100&page=${page}`, { headers: auth })).json();
    for (const r of list.results) {
      uuids.push(r.uuid);
      const want = sent.get(r.uuid);
      expect(want).toBeDefined();
      for (const a of r.answers) {
        if (a.response_type === "voice") {
          const signed = new URL(a.audio_url); // minted for the old server's URL: the signature is in the database
          const got = await fetch(server.baseUrl + signed.pathname + signed.search);
          if (erased.has(r.uuid)) {
            expect(got.status).toBe(404); // listed in erased_during_backup: not in the archive
            continue;
          }
          expect(got.status).toBe(200);
          expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(want!.audio))).toBe(true);
        } else if (a.response_type === "file_upload") {
          const got = await fetch(`${server.baseUrl}/api/v1/responses/${r.uuid}/answers/${a.uuid}/file/`, { headers: auth });
          expect(got.status).toBe(200);
          expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(want!.file!))).toBe(true);
        }
      }
    }
    if (!list.next) break;
  }
  await server.stop();
  return uuids;
}

test.skipIf(onPostgres)(
  "a backup taken during a burst of voice and file submissions and erasures restores every response of its snapshot with the same bytes (SQLite only: on PostgreSQL the blobs are in the database and pg_dump is the backup)",
  async () => {
    const app = await appliance("Backup under load");
    const before: string[] = [];
    for (let i = 0; i < 24; i++) before.push(await app.respond(256 * 1024));

    // The burst: 4 respondents submitting, and one operator erasing earlier responses, until the backup exits.
    let running = true;
    let duringBackup = 0;
    const erased: string[] = [];
    const respondents = Array.from({ length: 4 }, async () => {
      for (let i = 0; running && i < 150; i++) {
        await app.respond(i % 3 === 0 ? 0 : 64 * 1024);
        duringBackup++;
      }
    });
    const eraser = (async () => {
      for (let i = 0; running && i < 8; i++) {
        await app.erase(before[i]!);
        erased.push(before[i]!);
      }
    })();
    const archive = path.join(tempDir("archive"), "earshot.tar");
    await Bun.sleep(150);
    const startedAt = duringBackup;
    const backup = await runCli(["backup", archive], { dataDir: app.dataDir });
    const acknowledgedDuring = duringBackup - startedAt;
    running = false;
    await Promise.all([...respondents, eraser]);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain("Backup written to");
    expect(acknowledgedDuring).toBeGreaterThan(0); // the server kept taking answers while the backup ran

    const verified = await runCli(["backup", "--verify", archive], { dataDir: app.dataDir });
    expect([verified.code, verified.stderr]).toEqual([0, ""]);
    expect(verified.stdout).toContain("is a sound Earshot backup");
    const manifest = JSON.parse((await Bun.$`tar -xOf ${archive} manifest.json`.quiet()).stdout.toString());
    expect(manifest.erased_during_backup).toEqual([]);
    expect(manifest.earshot_version).toBe((await import("../../package.json")).version);

    // Restore into a new directory: a server on it has every response of the snapshot, bytes equal.
    const restoredDir = path.join(tempDir("restored"), "data");
    const restored = await runCli(["restore", archive], { dataDir: restoredDir });
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    const uuids = await checkRestored(restoredDir, app.link.uuid, app.ws.api_key, app.sent);
    expect(uuids.length).toBe(manifest.counts.responses);
    // Everything acknowledged before the backup started and not erased is in it.
    for (const uuid of before.slice(8)) expect(uuids).toContain(uuid);
    expect(manifest.files.length).toBeGreaterThanOrEqual(uuids.length);

    // Restore refuses a directory that is not empty, and leaves it as it was.
    const again = await runCli(["restore", archive], { dataDir: restoredDir });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("not empty");
    expect(fs.readdirSync(restoredDir).sort()).toEqual(["blobs", "earshot.db"]);
  },
  180_000,
);

test.skipIf(onPostgres)(
  "a response erased between the snapshot and the copy of its blobs is still whole in the archive (SQLite only: the blob hold is the disk store's)",
  async () => {
    const app = await appliance("Erased meanwhile");
    const victim = await app.respond(32 * 1024);
    const kept = await app.respond(32 * 1024);
    const db = openDatabase(path.join(app.dataDir, "earshot.db"));
    const archive = path.join(tempDir("erased-archive"), "earshot.tar");
    let erasedAt = -1;
    try {
      await writeBackup(db, path.join(app.dataDir, "blobs"), archive, (p) => {
        if (p.phase !== "copy" || erasedAt >= 0) return;
        erasedAt = p.blobs;
        // The snapshot is taken and no blob copied yet: the server erases the response now
        // (a separate process; the backup waits for it).
        const del = Bun.spawnSync([
          "curl",
          "-s",
          "-o",
          "/dev/null",
          "-w",
          "%{http_code}",
          "-X",
          "DELETE",
          "-H",
          `authorization: ${app.auth.authorization}`,
          `${app.server.baseUrl}/api/v1/responses/${victim}/`,
        ]);
        expect(del.stdout.toString()).toBe("200");
      });
    } finally {
      await db.destroy();
    }
    expect(erasedAt).toBe(0);
    // The server did erase it; the held blob is gone once the backup ended.
    expect((await fetch(`${app.server.baseUrl}/api/v1/responses/${victim}/`, { headers: app.auth })).status).toBe(404);
    expect(fs.existsSync(path.join(app.dataDir, "blobs", ".held"))).toBe(false);
    expect(fs.existsSync(path.join(app.dataDir, "blobs", ".backup-hold"))).toBe(false);

    const restoredDir = tempDir("erased-restored");
    expect((await runCli(["restore", archive], { dataDir: restoredDir })).code).toBe(0);
    expect((await checkRestored(restoredDir, app.link.uuid, app.ws.api_key, app.sent)).sort()).toEqual([victim, kept].sort());
  },
  120_000,
);

test.skipIf(onPostgres)(
  "a blob erased after the snapshot without the hold (a backup stalled past the marker's freshness) is listed as erased, and the archive still restores (SQLite only: the blob hold is the disk store's)",
  async () => {
    const app = await appliance("Stalled backup");
    const victim = await app.respond(0);
    const kept = await app.respond(16 * 1024);
    const db = openDatabase(path.join(app.dataDir, "earshot.db"));
    const archive = path.join(tempDir("stalled-archive"), "earshot.tar");
    let erased = false;
    let report: Awaited<ReturnType<typeof writeBackup>>;
    try {
      report = await writeBackup(db, path.join(app.dataDir, "blobs"), archive, (p) => {
        if (p.phase !== "copy" || erased) return;
        erased = true;
        // The backup has stalled for longer than the marker stays fresh: the server deletes at once.
        const then = new Date(Date.now() - HOLD_FRESH_MS - 1000);
        fs.utimesSync(path.join(app.dataDir, "blobs", HOLD_FILE), then, then);
        const del = Bun.spawnSync([
          "curl",
          "-s",
          "-o",
          "/dev/null",
          "-w",
          "%{http_code}",
          "-X",
          "DELETE",
          "-H",
          `authorization: ${app.auth.authorization}`,
          `${app.server.baseUrl}/api/v1/responses/${victim}/`,
        ]);
        expect(del.stdout.toString()).toBe("200");
      });
    } finally {
      await db.destroy();
    }
    expect(report.manifest.erased_during_backup).toHaveLength(1);
    expect(report.manifest.files).toHaveLength(2); // the kept response's recording and file
    expect((await runCli(["backup", "--verify", archive], { dataDir: app.dataDir })).code).toBe(0);
    const restoredDir = tempDir("stalled-restored");
    expect((await runCli(["restore", archive], { dataDir: restoredDir })).code).toBe(0);
    const restoredUuids = await checkRestored(restoredDir, app.link.uuid, app.ws.api_key, app.sent, new Set([victim]));
    expect(restoredUuids.sort()).toEqual([victim, kept].sort());
  },
  120_000,
);

test.skipIf(onPostgres)(
  "a backup fails, writing nothing, when a blob that an answer still references is missing from the data directory (SQLite only: blobs on disk)",
  async () => {
    const app = await appliance("Lost blob");
    const uuid = await app.respond(0);
    const db = openDatabase(path.join(app.dataDir, "earshot.db"));
    const key = (await db.selectFrom("answers").select("audio_blob").where("response_uuid", "=", uuid).executeTakeFirstOrThrow()).audio_blob!;
    await db.destroy();
    fs.rmSync(path.join(app.dataDir, "blobs", key));
    const dir = tempDir("lost");
    const r = await runCli(["backup", path.join(dir, "earshot.tar")], { dataDir: app.dataDir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${key} is referenced by an answer but missing`);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.existsSync(path.join(app.dataDir, "blobs", HOLD_FILE))).toBe(false);
  },
  120_000,
);

test.skipIf(onPostgres)(
  "--verify and restore refuse an archive whose bytes differ from its manifest, and a truncated one, writing nothing (SQLite only: archives are of SQLite appliances)",
  async () => {
    const app = await appliance("Damaged");
    await app.respond(8 * 1024);
    const dir = tempDir("damaged");
    const archive = path.join(dir, "good.tar");
    expect((await runCli(["backup", archive], { dataDir: app.dataDir })).code).toBe(0);
    expect((await runCli(["backup", archive], { dataDir: app.dataDir })).code).not.toBe(0); // never overwrites

    const bytes = fs.readFileSync(archive);
    const flipped = Buffer.from(bytes);
    const at = flipped.indexOf(Buffer.from(PNG.subarray(0, 8)));
    flipped[at + PNG.length + 100]! ^= 0xff; // inside the file's stored bytes, past the PNG
    fs.writeFileSync(path.join(dir, "flipped.tar"), flipped);
    fs.writeFileSync(path.join(dir, "truncated.tar"), bytes.subarray(0, Math.floor(bytes.length / 2)));
    for (const name of ["flipped.tar", "truncated.tar"]) {
      const v = await runCli(["backup", "--verify", path.join(dir, name)], { dataDir: app.dataDir });
      expect(v.code).not.toBe(0);
      const target = path.join(dir, `restore-${name}`);
      const r = await runCli(["restore", path.join(dir, name)], { dataDir: target });
      expect(r.code).not.toBe(0);
      expect(fs.readdirSync(target)).toEqual([]);
    }
    expect((await runCli(["backup", "--verify", path.join(dir, "flipped.tar")], { dataDir: app.dataDir })).stderr).toContain("differs from the manifest");
  },
  120_000,
);

test.skipIf(!onPostgres)("on PostgreSQL earshot backup refuses and names pg_dump, writing nothing (PostgreSQL only: the SQLite backup is tested above)", async () => {
  const dataDir = tempDir("postgres");
  expect((await runCli(["workspace", "create", "--name", "Cluster", "--json"], { dataDir })).code).toBe(0);
  const archive = path.join(dataDir, "earshot.tar");
  const r = await runCli(["backup", archive], { dataDir });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("pg_dump");
  expect(fs.existsSync(archive)).toBe(false);
});
