/**
 * @module bench/asr-bench-report
 * The side-by-side transcription bench's table (bench/asr-side-by-side.ts): medians over rounds per
 * size, clip and engine, each engine's time as a ratio to whisper-cli's on the same clip.
 */

/** One engine's run of one clip in one round (times in seconds, memory in MB). */
export type RunRecord = {
  engine: string;
  size: string;
  model: string;
  clip: string;
  durationS: number;
  /** Warm transcription: Earshot's request wall time; whisper-cli's total − load. */
  transcribeS: number;
  words: number;
  /** The whole process's peak RSS (/usr/bin/time). */
  peakRssMb: number;
  /** First transcription after process start (the first clip only), else null. */
  coldS: number | null;
  /** Earshot only: RSS with the model loaded, and after the idle unload. */
  rssLoadedMb: number | null;
  rssUnloadedMb: number | null;
  loadavg: string;
};

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : Number.NaN);
const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "–");

/** Prints the Markdown table (docs/performance.md "Transcription" takes it as is). */
export function printTable(records: RunRecord[], opts: { threads: number; onnxDtype: string; ggml: string }): void {
  const rounds = new Set(records.map((r) => `${r.engine}/${r.size}/${r.clip}`));
  const rows: string[] = [];
  rows.push("| size | clip | engine | transcription s | RTF | × whisper-cli | peak RSS MB | cold start s | words | load average |");
  rows.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  const sizes = [...new Set(records.map((r) => r.size))];
  const clips = [...new Set(records.map((r) => r.clip))];
  const engines = [...new Set(records.map((r) => r.engine))];
  for (const size of sizes) {
    for (const clip of clips) {
      const of = (engine: string) => records.filter((r) => r.size === size && r.clip === clip && r.engine === engine);
      const cli = median(of("cli").map((r) => r.transcribeS));
      for (const engine of engines) {
        const rs = of(engine);
        if (!rs.length) continue;
        const t = median(rs.map((r) => r.transcribeS));
        const cold = rs.map((r) => r.coldS).filter((x): x is number => x !== null);
        const loads = rs.map((r) => r.loadavg.split(" ")[0]).join(", ");
        rows.push(
          `| ${size} | ${clip} | ${engine} | ${fmt(t)} | ${fmt(t / rs[0]!.durationS, 3)} | ${engine === "cli" ? "1" : fmt(t / cli)} | ${median(rs.map((r) => r.peakRssMb))} | ${cold.length ? fmt(median(cold)) : ""} | ${rs[0]!.words} | ${loads} |`,
        );
      }
    }
  }
  const idle = records.filter((r) => r.rssUnloadedMb !== null);
  console.log(
    `\nmedians of ${Math.max(...[...rounds].map((k) => records.filter((r) => `${r.engine}/${r.size}/${r.clip}` === k).length))} rounds; ${opts.threads} thread(s); ONNX ${opts.onnxDtype}, ggml ${opts.ggml}\n`,
  );
  console.log(rows.join("\n"));
  for (const size of sizes) {
    const s = idle.filter((r) => r.size === size);
    if (!s.length) continue;
    console.log(
      `\n${size}: Earshot process RSS with the model loaded ${median(s.map((r) => r.rssLoadedMb!))} MB, after the idle unload ${median(s.map((r) => r.rssUnloadedMb!))} MB`,
    );
  }
}
