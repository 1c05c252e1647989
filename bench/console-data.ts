/**
 * @module bench/console-data
 * The inbox and dashboard with 10,000 responses on one link (issue 11: each must answer in under
 * 300 ms on loopback), for docs/performance.md.
 *
 *   bun bench/console-data.ts [--bin dist/earshot] [--responses 10000] [--runs 15]
 *
 * A fresh `earshot serve` (from source, or `--bin`); a link with one question of each answerable
 * type; RESPONSES responses seeded straight into its database (`test/helpers/seed-varied.ts`:
 * voice and text answers with transcripts and insights, choices, NPS, stars, yes/no, cards,
 * numbers, dates, emails; about one in six only started), as the intake's anonymous limits would
 * refuse that many sessions. Then, over HTTP on loopback with the workspace's key: the inbox's
 * first page (default and filtered), the workspace-wide list, the stats (all time, a week, weekly
 * buckets) — computed after a change (the link is renamed before each run, so the server's
 * per-change memo cannot answer) and remembered for another viewer — and a poll that finds
 * nothing new (304). Median, p95 and worst of RUNS runs after one warm-up, in ms, wall time from
 * the client; and the server process's CPU time per request (from /proc, so other load on a
 * shared machine inflates the wall times but hardly this column).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/client.ts";
import { startServer } from "../test/helpers/process.ts";
import { seedVariedResponses, VARIED_LINK } from "../test/helpers/seed-varied.ts";

const { values: flags } = parseArgs({
  options: {
    bin: { type: "string" },
    responses: { type: "string", default: "10000" },
    runs: { type: "string", default: "15" },
  },
});
const RESPONSES = Number(flags.responses);
const RUNS = Number(flags.runs);

/** CPU time the server process has used so far (user + system), ms, from /proc (Linux; 10 ms ticks). */
function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

const dataDir = await mkdtemp(path.join(tmpdir(), "earshot-bench-console-data-"));
const server = await startServer({ dataDir, bin: flags.bin ? [path.resolve(flags.bin)] : undefined });
try {
  await Bun.sleep(300);
  const key = /sk_live_[A-Za-z0-9]{40}/.exec(server.output())?.[0];
  if (!key) throw new Error(`no API key in the server's output:\n${server.output()}`);
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}/api/v1${p}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
    });
  const workspaceUuid = ((await (await api("/workspace/")).json()) as { uuid: string }).uuid;
  const link = (await (await api("/links/", { method: "POST", body: JSON.stringify(VARIED_LINK) })).json()) as Parameters<typeof seedVariedResponses>[2] & {
    uuid: string;
  };

  const db = openDatabase(path.join(dataDir, "earshot.db"));
  const seedStart = performance.now();
  const seeded = await seedVariedResponses(db, workspaceUuid, link, RESPONSES);
  await db.destroy();
  const answers = seeded.reduce((n, r) => n + r.answers.length, 0);
  console.log(`Seeded ${RESPONSES} responses (${answers} answers) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s.\n`);

  const cases: [string, string][] = [
    ["Inbox, first page (completed, newest first)", `/links/${link.uuid}/responses/`],
    ["Inbox, status=all", `/links/${link.uuid}/responses/?status=all`],
    ["Inbox, sentiment=negative", `/links/${link.uuid}/responses/?sentiment=negative`],
    ["Inbox, topic=pricing", `/links/${link.uuid}/responses/?topic=pricing`],
    ["Inbox, actionable=true + since/until", `/links/${link.uuid}/responses/?actionable=true&since=2026-01-10&until=2026-01-20`],
    ["Inbox, question=nps value_min=9", `/links/${link.uuid}/responses/?question=nps&value_min=9`],
    ["Inbox, search=checkout", `/links/${link.uuid}/responses/?search=checkout`],
    ["Inbox, ordering=date_created, page 50", `/links/${link.uuid}/responses/?ordering=date_created&page=50`],
    ["Workspace-wide responses/", `/responses/`],
    ["Stats, all time (daily)", `/links/${link.uuid}/stats/`],
    ["Stats, one week", `/links/${link.uuid}/stats/?since=2026-01-05&until=2026-01-11`],
    ["Stats, weekly buckets", `/links/${link.uuid}/stats/?bucket=week`],
  ];
  const rows: string[] = ["| Request | median | p95 | worst | server CPU / request | bytes |", "|---|---:|---:|---:|---:|---:|"];
  const pid = server.proc.pid;
  const time = async (p: string, headers: Record<string, string> = {}) => {
    const start = performance.now();
    const res = await api(p, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200 && res.status !== 304) throw new Error(`${p}: ${res.status} ${new TextDecoder().decode(body)}`);
    return { ms: performance.now() - start, bytes: body.byteLength, etag: res.headers.get("etag"), status: res.status };
  };
  /** A change in the workspace (renaming the link), so the next stats are computed, not remembered. */
  let renames = 0;
  const change = async () => {
    const res = await api(`/links/${link.uuid}/`, { method: "PATCH", body: JSON.stringify({ name: `Varied feedback ${++renames}` }) });
    if (res.status !== 200) throw new Error(`PATCH link: ${res.status}`);
  };
  for (const [name, p] of cases) {
    const stats = p.includes("/stats/");
    const warm = await time(p);
    const ms: number[] = [];
    let cpu = 0;
    for (let i = 0; i < RUNS; i++) {
      if (stats) await change();
      const before = serverCpuMs(pid);
      ms.push((await time(p)).ms);
      cpu += serverCpuMs(pid) - before;
    }
    rows.push(
      `| ${name}${stats ? " — after a change (computed)" : ""} | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 95).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | ${(cpu / RUNS).toFixed(0)} | ${warm.bytes} |`,
    );
    if (stats) {
      const again: number[] = [];
      const before = serverCpuMs(pid);
      for (let i = 0; i < RUNS; i++) again.push((await time(p)).ms);
      const cpuAgain = (serverCpuMs(pid) - before) / RUNS;
      rows.push(
        `| ${name} — unchanged, another viewer (remembered) | ${pct(again, 50).toFixed(1)} | ${pct(again, 95).toFixed(1)} | ${Math.max(...again).toFixed(1)} | ${cpuAgain.toFixed(0)} | ${warm.bytes} |`,
      );
    }
  }
  for (const [name, p] of [cases[0]!, cases[9]!]) {
    const { etag } = await time(p);
    const ms: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await time(p, { "if-none-match": etag! });
      if (r.status !== 304) throw new Error(`expected 304 for ${p}, got ${r.status}`);
      ms.push(r.ms);
    }
    rows.push(
      `| ${name.split(",")[0]}: poll with If-None-Match, nothing new (304) | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 95).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | – | 0 |`,
    );
  }
  console.log(rows.join("\n"));
  console.log(`\nLoad average at the end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} (${navigator.hardwareConcurrency} CPUs).`);
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
