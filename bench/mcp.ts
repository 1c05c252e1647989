/**
 * @module bench/mcp
 * What an MCP tool call costs against the REST request it mirrors (issue 29; docs/mcp.md): a real
 * `earshot serve` (from source) on loopback, one client sending requests one after another, for
 *   - `GET /api/v1/links/?page_size=10` and the MCP `tools/call list_links {limit: 10}`,
 *   - `GET /api/v1/links/{uuid}/stats/` and `tools/call link_stats`,
 *   - the MCP `initialize` and `tools/list`,
 * each `--requests` times after a warm-up, reporting latency (median, p95) and the server's CPU per
 * request (/proc utime + stime). The first MCP request (which imports the SDK) is timed apart.
 * Prints figures; asserts nothing about time.
 *
 *   npx bun bench/mcp.ts [--requests 300] [--links 20] [--keep]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runCli, startServer } from "../test/helpers/process.ts";
import { cpuTicks } from "./proc-stat.ts";

const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ, the unit of /proc/<pid>/stat utime/stime
const { values: flags } = parseArgs({
  options: { requests: { type: "string", default: "300" }, links: { type: "string", default: "20" }, keep: { type: "boolean", default: false } },
});
const REQUESTS = Number(flags.requests);

const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-bench-mcp-"));
const created = await runCli(["workspace", "create", "--name", "Bench", "--plan", "enterprise", "--json"], { dataDir });
const ws = JSON.parse(created.stdout) as { workspace_uuid: string; api_key: string };
await runCli(["workspace", "update", ws.workspace_uuid, "--requests-per-minute", "1000000"], { dataDir });
const server = await startServer({ dataDir, env: { EARSHOT_LOG_LEVEL: "warn" } });
const auth = { authorization: `Bearer ${ws.api_key}` };
const mcpHeaders = { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" };

try {
  let linkUuid = "";
  for (let i = 0; i < Number(flags.links); i++) {
    const questions = [1, 2, 3, 4, 5].map((n) => ({ prompt: `Question ${n} of link ${i}`, type: n === 1 ? "voice" : "text" }));
    const r = await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: `Link ${i}`, questions }),
    });
    linkUuid = ((await r.json()) as { uuid: string }).uuid;
  }
  const rpc = (method: string, params: unknown) => ({ method: "POST", headers: mcpHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const tool = (name: string, args: unknown) => rpc("tools/call", { name, arguments: args });
  const init = rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
  const mcpUrl = `${server.baseUrl}/api/mcp/`;

  const first = performance.now();
  const firstReply = await fetch(mcpUrl, tool("list_links", { limit: 10 }));
  await firstReply.text();
  const firstMs = performance.now() - first;

  const cases: [string, string, RequestInit][] = [
    ["REST GET links/?page_size=10", `${server.baseUrl}/api/v1/links/?page_size=10`, { headers: auth }],
    ["MCP tools/call list_links {limit: 10}", mcpUrl, tool("list_links", { limit: 10 })],
    ["REST GET links/{uuid}/stats/", `${server.baseUrl}/api/v1/links/${linkUuid}/stats/`, { headers: auth }],
    ["MCP tools/call link_stats", mcpUrl, tool("link_stats", { link_uuid: linkUuid })],
    ["MCP initialize", mcpUrl, init],
    ["MCP tools/list", mcpUrl, rpc("tools/list", {})],
  ];
  console.log(
    `bench/mcp: ${REQUESTS} sequential requests per case, ${flags.links} links, load average ${loadavg()[0]!.toFixed(2)} (${new Date().toISOString()})`,
  );
  console.log(`first MCP request (imports the SDK): ${firstMs.toFixed(1)} ms`);
  console.log("| case | median ms | p95 ms | server CPU ms / request |");
  console.log("|---|---|---|---|");
  for (const [name, url, init] of cases) {
    for (let i = 0; i < 30; i++) await (await fetch(url, init)).text(); // warm-up
    const times: number[] = [];
    const before = cpuTicks(server.proc.pid);
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      const r = await fetch(url, init);
      await r.text();
      if (r.status !== 200) throw new Error(`${name}: ${r.status}`);
      times.push(performance.now() - t);
    }
    const cpuMs = ((cpuTicks(server.proc.pid) - before) / CLOCK_TICKS_PER_S / REQUESTS) * 1000;
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
    console.log(`| ${name} | ${at(0.5)} | ${at(0.95)} | ${cpuMs.toFixed(2)} |`);
  }
} finally {
  await server.stop();
  if (!flags.keep) rmSync(dataDir, { recursive: true, force: true });
}
