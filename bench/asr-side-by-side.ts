/**
 * @module bench/asr-side-by-side
 * Earshot's transcription against whisper.cpp's own `whisper-cli` built from the same source
 * (issue 27), run by `npx bun bench/asr.ts --side-by-side`. Prepares once, cached in `--work`
 * (default /tmp/earshot-asr-bench): whisper.cpp's source from the pinned `nodejs-whisper@0.3.1`
 * (node_modules, else `npm pack`) built with cmake; espeak-ng + sox clips of 10, 30 and 120 s;
 * random-weight models of the real tiny.en/base.en dimensions, ONNX and ggml with the same weights,
 * steered to decode the same number of tokens per 30 s window (../shared/bench/asr/make_models.py,
 * needs python3 with numpy, onnx, onnxruntime: a venv is made when they are missing). Then, for each
 * round, size and engine in turn, a fresh process per run; prints per clip and size the median
 * transcription time, RTF, ratio to whisper-cli, peak RSS and cold start, with the load average.
 * Asserts nothing about time.
 *
 *   npx bun bench/asr.ts --side-by-side [--engines transformers,whispercpp,cli] [--sizes tiny,base]
 *     [--rounds 3] [--threads 1] [--onnx-dtype q8] [--ggml f16] [--work DIR] [--json FILE]
 *
 * Engines: `transformers` and `whispercpp` are Earshot's worker with EARSHOT_ASR_ENGINE set to
 * that engine (bench/asr-earshot-run.ts; `whispercpp` needs that engine merged: its model is
 * `--whispercpp-model`, `{size}` replaced); `cli` is whisper-cli (greedy, no carried prompt:
 * `-bs 1 -bo 1 -mc 0`, whisper_full's defaults), one process per clip, its transcription time
 * being its own `total time − load time` and its cold start the whole process for the first clip.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { prepareBench } from "./asr-bench-setup.ts";
import { printTable, type RunRecord } from "./asr-bench-report.ts";

const { values: o } = parseArgs({
  options: {
    "side-by-side": { type: "boolean" },
    engines: { type: "string", default: "transformers,cli" },
    sizes: { type: "string", default: "tiny,base" },
    rounds: { type: "string", default: "3" },
    threads: { type: "string", default: String(Math.max(1, os.availableParallelism() - 1)) },
    "onnx-dtype": { type: "string", default: "q8" },
    ggml: { type: "string", default: "f16" },
    // The ggml file the whisper.cpp engine reads, as `<folder>/ggml-model.bin` (ai/asr-files.ts).
    "whispercpp-model": { type: "string", default: "ggml-{size}.en-rand-{ggml}.bin" },
    tokens: { type: "string", default: "60" },
    work: { type: "string", default: path.join(os.tmpdir(), "earshot-asr-bench") },
    shared: { type: "string", default: path.resolve(import.meta.dir, "../../shared") },
    json: { type: "string" },
    "limit-s": { type: "string", default: "900" },
  },
});

const engines = o.engines!.split(",").filter(Boolean);
const sizes = o.sizes!.split(",").filter(Boolean);
const threads = Number(o.threads);
const limitS = Number(o["limit-s"]);
const setup = await prepareBench({
  work: path.resolve(o.work!),
  shared: path.resolve(o.shared!),
  sizes,
  tokens: Number(o.tokens),
  needCli: engines.includes("cli"),
});
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

/** Runs `cmd` under /usr/bin/time (peak RSS, wall) with a time limit; stdout, stderr, rss MB, wall s. */
function timed(cmd: string[], env: Record<string, string> = {}) {
  const timeFile = path.join(setup.work, `time-${process.pid}.txt`);
  const run = Bun.spawnSync(["timeout", String(limitS), "/usr/bin/time", "-f", "%M %e", "-o", timeFile, ...cmd], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [rssKb, wallS] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
  rmSync(timeFile, { force: true });
  return { ok: run.exitCode === 0, stdout: run.stdout.toString(), stderr: run.stderr.toString(), rssMb: Math.round(rssKb! / 1024), wallS: wallS! };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * A model folder holding only `ggml-model.bin` (a link to `--whispercpp-model`), the layout the
 * whisper.cpp engine reads. @returns its id under the models folder
 */
function ggmlModelFolder(size: string): string {
  const file = o["whispercpp-model"]!.replaceAll("{size}", size).replaceAll("{ggml}", o.ggml!);
  const id = `ggml-folder-${path.basename(file, ".bin")}`;
  const dir = path.join(setup.modelsDir, id);
  mkdirSync(dir, { recursive: true });
  rmSync(path.join(dir, "ggml-model.bin"), { force: true });
  symlinkSync(path.resolve(setup.modelsDir, file), path.join(dir, "ggml-model.bin"));
  return id;
}

/** Earshot's worker in a fresh process with EARSHOT_ASR_ENGINE=`engine`. */
function runEarshot(engine: string, size: string): RunRecord[] {
  const model = engine === "whispercpp" ? ggmlModelFolder(size) : `whisper-${size}.en-rand-${o["onnx-dtype"]}`;
  const load = loadavg();
  const r = timed(
    [
      "npx",
      "bun",
      path.join(import.meta.dir, "asr-earshot-run.ts"),
      "--models-dir",
      setup.modelsDir,
      "--model",
      model,
      "--threads",
      String(threads),
      ...setup.clips,
    ],
    { EARSHOT_ASR_ENGINE: engine },
  );
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  if (!r.ok || !line.startsWith("{")) {
    console.error(`  ${engine} ${size}: FAILED\n${r.stderr.slice(-800)}`);
    return [];
  }
  const out = JSON.parse(line);
  return Object.entries(out.runs as Record<string, { wall_ms: number; words: number; duration_s: number }[]>).map(([clip, reps]) => ({
    engine,
    size,
    model,
    clip,
    durationS: reps[0]!.duration_s,
    transcribeS: median(reps.map((x) => x.wall_ms)) / 1000,
    words: reps[0]!.words,
    peakRssMb: r.rssMb,
    coldS: clip === out.cold.clip ? out.cold.wall_ms / 1000 : null,
    rssLoadedMb: out.rss_loaded_mb,
    rssUnloadedMb: out.rss_unloaded_mb,
    loadavg: load,
  }));
}

/** whisper-cli, one process per clip. */
function runCli(size: string): RunRecord[] {
  const model = path.join(setup.modelsDir, `ggml-${size}.en-rand-${o.ggml}.bin`);
  return setup.clips.map((clip, i) => {
    const load = loadavg();
    const outBase = path.join(setup.work, `cli-out-${process.pid}`);
    const r = timed([
      setup.whisperCli,
      "-m",
      model,
      "-f",
      clip,
      "-t",
      String(threads),
      "-l",
      "en",
      "-bs",
      "1",
      "-bo",
      "1",
      "-mc",
      "0",
      "-otxt",
      "-of",
      outBase,
    ]);
    const ms = (what: string) => Number(new RegExp(`${what} time =\\s*([0-9.]+) ms`).exec(r.stderr)?.[1] ?? Number.NaN);
    const text = existsSync(`${outBase}.txt`) ? readFileSync(`${outBase}.txt`, "utf8") : "";
    rmSync(`${outBase}.txt`, { force: true });
    const durationS = Number(/\(([0-9]+) samples, ([0-9.]+) sec\)/.exec(r.stderr)?.[2] ?? Number.NaN);
    return {
      engine: "cli",
      size,
      model: path.basename(model),
      clip: path.basename(clip),
      durationS,
      transcribeS: (ms("total") - ms("load")) / 1000,
      words: text.split(/\s+/).filter(Boolean).length,
      peakRssMb: r.rssMb,
      coldS: i === 0 ? r.wallS : null,
      rssLoadedMb: null,
      rssUnloadedMb: null,
      loadavg: load,
    };
  });
}

const records: RunRecord[] = [];
const rounds = Number(o.rounds);
console.log(
  `side by side: engines ${engines.join(", ")}; sizes ${sizes.join(", ")}; ${rounds} rounds; ${threads} thread(s); ${os.availableParallelism()} cores`,
);
for (let round = 1; round <= rounds; round++) {
  for (const size of sizes) {
    for (const engine of engines) {
      console.log(`round ${round}, ${size}, ${engine} (load average ${loadavg()})`);
      records.push(...(engine === "cli" ? runCli(size) : runEarshot(engine, size)));
    }
  }
}
if (o.json) {
  mkdirSync(path.dirname(path.resolve(o.json)), { recursive: true });
  await Bun.write(o.json, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
}
printTable(records, { threads, onnxDtype: o["onnx-dtype"]!, ggml: o.ggml! });
