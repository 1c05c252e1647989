/**
 * @module bench/api-baseline
 * The ceiling for bench/api.ts: a bare `Bun.serve` over the same SQLite file that answers
 * `GET /api/v1/links/{uuid}/` and `GET /api/v1/links/` (page 1, 20 per page, newest first) with
 * the same JSON as Earshot. It runs the same SQL as Earshot's repository, through bun:sqlite
 * statements prepared once (`db.query` caches them), and maps rows with Earshot's own `toLink`
 * and `envelope`, so the bodies are byte-for-byte comparable. What it leaves out is everything
 * else in Earshot's request path: Elysia, authentication (key hash lookup, workspace lookup,
 * usage writes, revocation re-check), zod query parsing and Kysely.
 *
 *   bun bench/api-baseline.ts --db DATA/earshot.db --port P --workspace UUID --public-url URL
 *
 * With `--db postgres://…` the same SQL runs on PostgreSQL through a `pg` pool (10 connections,
 * the same driver Earshot uses there), the ceiling of bench/api.ts `--database-url`.
 *
 * Prints `listening <port>` once ready; stops on SIGTERM/SIGINT.
 */
import { nowIso } from "../src/clock.ts";
import { Database } from "bun:sqlite";
import pg from "pg";
import { parseArgs } from "node:util";
import { envelope } from "../src/http/pagination.ts";
import { toLink } from "../src/modules/links/service.ts";
import type { LinkRow, QuestionRow } from "../src/modules/links/repository.ts";

const PAGE_SIZE = 20;

const { values: flags } = parseArgs({
  options: {
    db: { type: "string" },
    port: { type: "string", default: "0" },
    workspace: { type: "string" },
    "public-url": { type: "string", default: "http://localhost:8080" },
  },
});
if (!flags.db || !flags.workspace) throw new Error("usage: api-baseline.ts --db FILE --workspace UUID [--port P] [--public-url URL]");
const publicUrl = flags["public-url"]!;

const marks = (n: number, from = 1, pgStyle = false) => Array.from({ length: n }, (_, i) => (pgStyle ? `$${from + i}` : "?")).join(", ");

/** The four reads, on SQLite (bun:sqlite statements prepared once) or PostgreSQL (`--db postgres://…`, a `pg` pool). */
type Reads = {
  ws: { slug: string; host: string | null };
  findLink(uuid: string): Promise<LinkRow | null>;
  pageOfLinks(limit: number, offset: number): Promise<LinkRow[]>;
  countLinks(): Promise<number>;
  questionsOf(uuids: string[]): Promise<QuestionRow[]>;
  responseCounts(uuids: string[]): Promise<{ link_uuid: string; n: number }[]>;
};

async function sqliteReads(file: string, workspace: string): Promise<Reads> {
  const db = new Database(file);
  db.exec("PRAGMA busy_timeout = 5000");
  const ws = db.query("select slug, host from workspaces where uuid = ?").get(workspace) as { slug: string; host: string | null } | null;
  if (!ws) throw new Error(`no workspace ${workspace}`);
  const findLink = db.query("select * from links where workspace_uuid = ? and uuid = ?");
  const pageOfLinks = db.query("select * from links where workspace_uuid = ? order by date_created desc, uuid limit ? offset ?");
  const countLinks = db.query("select count(*) as n from links where workspace_uuid = ?");
  process.once("exit", () => db.close());
  return {
    ws,
    findLink: async (uuid) => findLink.get(workspace, uuid) as LinkRow | null,
    pageOfLinks: async (limit, offset) => pageOfLinks.all(workspace, limit, offset) as LinkRow[],
    countLinks: async () => (countLinks.get(workspace) as { n: number }).n,
    // `in (…)` lists vary in length; db.query caches one statement per distinct SQL text.
    questionsOf: async (uuids) =>
      db.query(`select * from questions where link_uuid in (${marks(uuids.length)}) order by "order", position`).all(...uuids) as QuestionRow[],
    responseCounts: async (uuids) =>
      db
        .query(`select link_uuid, count(*) as n from responses where link_uuid in (${marks(uuids.length)}) and status = 'completed' group by link_uuid`)
        .all(...uuids) as { link_uuid: string; n: number }[],
  };
}

async function postgresReads(url: string, workspace: string): Promise<Reads> {
  pg.types.setTypeParser(20, Number); // count(*) is int8
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const rows = async <R>(text: string, values: unknown[]) => (await pool.query(text, values)).rows as R[];
  const [ws] = await rows<{ slug: string; host: string | null }>("select slug, host from workspaces where uuid = $1", [workspace]);
  if (!ws) throw new Error(`no workspace ${workspace}`);
  return {
    ws,
    findLink: async (uuid) => (await rows<LinkRow>("select * from links where workspace_uuid = $1 and uuid = $2", [workspace, uuid]))[0] ?? null,
    pageOfLinks: (limit, offset) =>
      rows<LinkRow>("select * from links where workspace_uuid = $1 order by date_created desc, uuid limit $2 offset $3", [workspace, limit, offset]),
    countLinks: async () => (await rows<{ n: number }>("select count(*) as n from links where workspace_uuid = $1", [workspace]))[0]!.n,
    questionsOf: (uuids) => rows<QuestionRow>(`select * from questions where link_uuid in (${marks(uuids.length, 1, true)}) order by "order", position`, uuids),
    responseCounts: (uuids) =>
      rows<{ link_uuid: string; n: number }>(
        `select link_uuid, count(*) as n from responses where link_uuid in (${marks(uuids.length, 1, true)}) and status = 'completed' group by link_uuid`,
        uuids,
      ),
  };
}

const reads = /^postgres(ql)?:\/\//i.test(flags.db) ? await postgresReads(flags.db, flags.workspace) : await sqliteReads(flags.db, flags.workspace);
const ws = reads.ws;

async function loadLinks(rows: LinkRow[]) {
  if (!rows.length) return [];
  const uuids = rows.map((r) => r.uuid);
  const [questions, countRows] = await Promise.all([reads.questionsOf(uuids), reads.responseCounts(uuids)]);
  const counts = new Map(countRows.map((r) => [r.link_uuid, r.n]));
  return rows.map((r) =>
    toLink(
      publicUrl,
      ws,
      r,
      questions.filter((q) => q.link_uuid === r.uuid),
      counts.get(r.uuid) ?? 0,
      nowIso(),
    ),
  );
}

const notFound = () => Response.json({ status: 404, code: "NOT_FOUND" }, { status: 404 });

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(flags.port),
  routes: {
    "/healthz": () => Response.json({ status: "ok" }),
    "/api/v1/links/": async (req) => {
      const [rows, n] = await Promise.all([reads.pageOfLinks(PAGE_SIZE, 0), reads.countLinks()]);
      return Response.json(envelope(req.url, publicUrl, { page: 1, pageSize: PAGE_SIZE, offset: 0 }, n, await loadLinks(rows)));
    },
    "/api/v1/links/:uuid/": async (req) => {
      const row = await reads.findLink(req.params.uuid);
      return row ? Response.json((await loadLinks([row]))[0]) : notFound();
    },
  },
  fetch: notFound,
});

const stop = () => {
  void server.stop(true);
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.stdout.write(`listening ${server.port}\n`);
