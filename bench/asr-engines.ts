/**
 * @module bench/asr-engines
 * Earshot's two speech engines side by side (issue 27, docs/decisions/asr-engine.md): the same
 * clips through `createAsrEngine` with `transformers` and with `whispercpp`, a fresh process per
 * engine and round, engines alternating, VAD off (the whole clip is decoded). Per run: the first
 * transcription after start (load included), a second one (warm), and the process's peak RSS
 * (VmHWM), and the CPU time of the warm run (all threads; robust to other load). Meant for random-weight models of the real dimensions, steered to decode the same
 * number of tokens in both engines (../shared/bench/asr/make_models.py; its README).
 *
 *   bun bench/asr-engines.ts --models-dir /tmp/asr/models --model whisper-tiny.en-rand-q8 \
 *     --threads 1 --rounds 3 clip-10s.wav clip-30s.wav clip-120s.wav
 *
 * The model folder must hold the ONNX files and `ggml-model.bin` (e.g. a link to
 * `ggml-tiny.en-rand-f16.bin`). Prints one JSON line per run, then medians per engine and clip.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values: opts, positionals: clips } = parseArgs({
  allowPositionals: true,
  options: {
    "models-dir": { type: "string" },
    model: { type: "string" },
    threads: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    child: { type: "string" }, // engine, in the child process
  },
});

type Run = {
  engine: string;
  clip: string;
  audioS: number;
  coldMs: number;
  warmMs: number;
  /** CPU time of the warm run, all threads of the process: far less sensitive than wall time to other load on a shared machine. */
  warmCpuMs: number;
  loadMs: number;
  peakRssMb: number;
  chars: number;
  loadavg: number;
};

const peakRssMb = (): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

async function child(engine: "transformers" | "whispercpp", clip: string): Promise<void> {
  const { decodeAudio } = await import("../src/ai/audio.ts");
  const { createAsrEngine } = await import("../src/ai/asr-engine.ts");
  const audio = await decodeAudio(new Uint8Array(readFileSync(clip)), { maxDurationS: 3600 });
  const asr = createAsrEngine(opts["models-dir"]!, opts.model!, Number(opts.threads), "off", engine);
  let started = performance.now();
  const cold = await asr.transcribe(audio.pcm, { durationS: audio.durationS });
  const coldMs = performance.now() - started;
  started = performance.now();
  const cpu = process.cpuUsage();
  await asr.transcribe(audio.pcm, { durationS: audio.durationS });
  const warmMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const os = await import("node:os");
  const run: Run = {
    engine,
    clip: path.basename(clip),
    audioS: audio.durationS,
    coldMs: Math.round(coldMs),
    warmMs: Math.round(warmMs),
    warmCpuMs: Math.round((used.user + used.system) / 1000),
    loadMs: Math.round(cold.loadMs),
    peakRssMb: Math.round(peakRssMb()),
    chars: cold.text.length,
    loadavg: Number(os.loadavg()[0]!.toFixed(2)),
  };
  console.log(JSON.stringify(run));
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function parent(): Promise<void> {
  if (!opts["models-dir"] || !opts.model || clips.length === 0) throw new Error("usage: see the module comment");
  const runs: Run[] = [];
  for (let round = 0; round < Number(opts.rounds); round++) {
    const engines = round % 2 === 0 ? ["whispercpp", "transformers"] : ["transformers", "whispercpp"];
    for (const clip of clips) {
      for (const engine of engines) {
        const args = [
          process.execPath,
          import.meta.path,
          "--child",
          engine,
          "--models-dir",
          opts["models-dir"],
          "--model",
          opts.model,
          "--threads",
          opts.threads!,
          clip,
        ];
        const proc = Bun.spawnSync(args, { stderr: "pipe", env: { ...process.env, EARSHOT_LOG_LEVEL: "warn" } });
        const line = proc.stdout.toString().trim().split("\n").at(-1) ?? "";
        if (proc.exitCode !== 0 || !line.startsWith("{")) throw new Error(`${engine} on ${clip} failed: ${proc.stderr.toString().slice(-2000)}`);
        console.log(line);
        runs.push(JSON.parse(line) as Run);
      }
    }
  }
  console.log("\nmedians (ms, MB):  clip  engine  cold  warm  warm-CPU  load  peakRSS  warm-CPU ratio (transformers/whispercpp)");
  for (const clip of clips.map((c) => path.basename(c))) {
    const of = (e: string) => runs.filter((r) => r.clip === clip && r.engine === e);
    const warmCpu = (e: string) => median(of(e).map((r) => r.warmCpuMs));
    for (const e of ["whispercpp", "transformers"]) {
      const rs = of(e);
      console.log(
        `${clip}  ${e}  ${median(rs.map((r) => r.coldMs))}  ${median(rs.map((r) => r.warmMs))}  ${warmCpu(e)}  ${median(rs.map((r) => r.loadMs))}  ${median(rs.map((r) => r.peakRssMb))}  ${e === "transformers" ? (warmCpu("transformers") / warmCpu("whispercpp")).toFixed(2) : ""}`,
      );
    }
  }
}

if (opts.child) await child(opts.child as "transformers" | "whispercpp", clips[0]!);
else await parent();
