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
 * Prints `listening <port>` once ready; stops on SIGTERM/SIGINT.
 */
import { Database } from "bun:sqlite";
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

const db = new Database(flags.db);
db.exec("PRAGMA busy_timeout = 5000");
const ws = db.query("select slug, host from workspaces where uuid = ?").get(flags.workspace) as { slug: string; host: string | null } | null;
if (!ws) throw new Error(`no workspace ${flags.workspace}`);

const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
const findLink = db.query("select * from links where workspace_uuid = ? and uuid = ?");
const pageOfLinks = db.query("select * from links where workspace_uuid = ? order by date_created desc, uuid limit ? offset ?");
const countLinks = db.query("select count(*) as n from links where workspace_uuid = ?");
// `in (…)` lists vary in length; db.query caches one statement per distinct SQL text.
const questionsOf = (uuids: string[]) =>
  db.query(`select * from questions where link_uuid in (${marks(uuids.length)}) order by "order", position`).all(...uuids) as QuestionRow[];
const responseCounts = (uuids: string[]) =>
  db.query(`select link_uuid, count(*) as n from responses where link_uuid in (${marks(uuids.length)}) and status = 'completed' group by link_uuid`)
    .all(...uuids) as { link_uuid: string; n: number }[];

function loadLinks(rows: LinkRow[]) {
  if (!rows.length) return [];
  const uuids = rows.map((r) => r.uuid);
  const questions = questionsOf(uuids);
  const counts = new Map(responseCounts(uuids).map((r) => [r.link_uuid, r.n]));
  return rows.map((r) => toLink(publicUrl, ws!, r, questions.filter((q) => q.link_uuid === r.uuid), counts.get(r.uuid) ?? 0));
}

const notFound = () => Response.json({ status: 404, code: "NOT_FOUND" }, { status: 404 });

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(flags.port),
  routes: {
    "/healthz": () => Response.json({ status: "ok" }),
    "/api/v1/links/": (req) => {
      const rows = pageOfLinks.all(flags.workspace!, PAGE_SIZE, 0) as LinkRow[];
      const { n } = countLinks.get(flags.workspace!) as { n: number };
      return Response.json(envelope(req.url, publicUrl, { page: 1, pageSize: PAGE_SIZE, offset: 0 }, n, loadLinks(rows)));
    },
    "/api/v1/links/:uuid/": (req) => {
      const row = findLink.get(flags.workspace!, req.params.uuid) as LinkRow | null;
      return row ? Response.json(loadLinks([row])[0]) : notFound();
    },
  },
  fetch: notFound,
});

const stop = () => {
  void server.stop(true);
  db.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.stdout.write(`listening ${server.port}\n`);
