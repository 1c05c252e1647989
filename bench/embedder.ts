/**
 * @module bench/embedder
 * Load time, embedding throughput and memory of a themes engine (issue 24; docs/models.md
 * "Sentence-embedding models"): the built-in SIF engine, or a sentence-embedding model in a
 * models directory (the generated fixture, or a real model once fetched). Embeds the answers of
 * the dev theme set, repeated to `--n`, in the engine's own batches. CPU time is reported beside
 * wall time: the machine is shared.
 *
 *   npx bun bench/embedder.ts                                   # built-in engine
 *   npx bun bench/embedder.ts --models-dir test/fixtures/models --model tiny-embedder
 *   npx bun bench/embedder.ts --models-dir ./models --model Xenova/all-MiniLM-L6-v2 --n 2000
 */
import { parseArgs } from "node:util";
import { loadThemeSet } from "../src/ai/themes/labelled-set.ts";
import { selectEmbedder } from "../src/ai/themes/select.ts";

const { values } = parseArgs({
  options: { "models-dir": { type: "string", default: "./models" }, model: { type: "string", default: "sif" }, n: { type: "string", default: "2000" } },
});
const n = Number(values.n);
const texts = loadThemeSet("dev").flatMap((q) => q.items.map((it) => it.text));
const inputs = Array.from({ length: n }, (_, i) => texts[i % texts.length]!);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rssBefore = process.memoryUsage.rss();
let [wall, cpu0] = [performance.now(), cpu()];
const engine = await selectEmbedder({ modelsDir: values["models-dir"]!, choice: values.model!, onWarning: (l) => console.error(`warning: ${l}`) });
const load = { wallMs: performance.now() - wall, cpuMs: cpu() - cpu0 };
[wall, cpu0] = [performance.now(), cpu()];
await engine.embedBatch(inputs);
const embedWall = performance.now() - wall;
const embedCpu = cpu() - cpu0;
const mean = texts.reduce((s, t) => s + t.split(/\s+/).length, 0) / texts.length;
console.log(
  JSON.stringify({
    engine: engine.id,
    dimensions: engine.dimensions,
    answers: n,
    mean_words: Math.round(mean * 10) / 10,
    load_ms: { wall: Math.round(load.wallMs), cpu: Math.round(load.cpuMs) },
    per_answer_ms: { wall: Math.round((embedWall / n) * 1000) / 1000, cpu: Math.round((embedCpu / n) * 1000) / 1000 },
    rss_growth_mb: Math.round((process.memoryUsage.rss() - rssBefore) / 1e6),
  }),
);
