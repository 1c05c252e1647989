/**
 * @module bench/metrics-overhead
 * CPU cost of the per-request metric (src/metrics/http.ts) in isolation: the same trivial handler
 * called through the wrap and without it, over the real app's route table (route-template lookup,
 * cached histogram child, one observe). Rounds alternate between the two so a busy machine slows
 * both alike; prints the best and the median round. Asserts nothing.
 *
 *   npx bun bench/metrics-overhead.ts [--calls 200000] [--rounds 7]
 */
import { parseArgs } from "node:util";
import { createTestApi } from "../test/helpers/api.ts";
import { httpMetricsWrap } from "../src/metrics/http.ts";

const { values: flags } = parseArgs({ options: { calls: { type: "string", default: "200000" }, rounds: { type: "string", default: "7" } } });
const calls = Number(flags.calls);
const rounds = Number(flags.rounds);

const api = await createTestApi();
const routes = api.app.routes.map((r) => ({ method: r.method, path: r.path }));
await api.close();

const answer = new Response("{}", { status: 200 });
const handler = (_r: Request) => answer;
const wrapped = httpMetricsWrap(() => routes)(handler);
// The paths a busy API sees: a static route, a dynamic one, an intake one, an unknown one.
const requests = [
  "http://localhost/api/v1/links/",
  "http://localhost/api/v1/links/0b1c2d3e-0000-4000-8000-000000000000/",
  "http://localhost/api/v1/intake/acme/product-feedback/sessions/ses_0123456789abcdef/",
  "http://localhost/no/such/path",
].map((u) => new Request(u));

function round(fn: (r: Request) => unknown): number {
  const start = Bun.nanoseconds();
  for (let i = 0; i < calls; i++) fn(requests[i & 3]!);
  return (Bun.nanoseconds() - start) / calls;
}

const plain: number[] = [];
const metered: number[] = [];
round(handler);
round(wrapped);
for (let i = 0; i < rounds; i++) {
  plain.push(round(handler));
  metered.push(round(wrapped));
}
const best = (xs: number[]) => Math.min(...xs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`| calls | ${calls} × ${rounds} rounds |`);
console.log("| --- | ---: |");
console.log(`| handler alone, ns/call (best / median) | ${best(plain).toFixed(0)} / ${median(plain).toFixed(0)} |`);
console.log(`| through the metric, ns/call (best / median) | ${best(metered).toFixed(0)} / ${median(metered).toFixed(0)} |`);
console.log(
  `| the metric's cost, ns/request (best / median) | ${(best(metered) - best(plain)).toFixed(0)} / ${(median(metered) - median(plain)).toFixed(0)} |`,
);
