/**
 * @module commands/inference
 * `earshot transcribe FILE` and `earshot analyse` (docs/models.md): the operator's direct line to
 * the same inference worker the server uses, with the same models (EARSHOT_MODELS_DIR,
 * EARSHOT_ASR_MODEL, EARSHOT_SENTIMENT_MODEL). Failures print one line on stderr and exit 1.
 */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { Config } from "../config.ts";
import { AudioDecodeError } from "../ai/audio-common.ts";
import { createInferenceClient, type AnalyseOptions, type AnalysisResult, type InferenceClient } from "../ai/inference-client.ts";

/** Requests kept in flight by `analyse --jsonl` (the worker runs one at a time; this hides the hand-offs). */
const JSONL_WINDOW = 8;

/** One input line of `analyse --jsonl`. */
type JsonlInput = {
  text: string;
  prompt?: string;
  enable_dynamic_probing?: boolean;
  evaluator_config?: AnalyseOptions["evaluatorConfig"];
};

/**
 * The inference client exactly as the configuration asks for it (models, engine, threads, idle
 * unload, VAD): what `earshot transcribe`/`analyse` use, and what bench/asr-earshot-run.ts
 * measures. Starts nothing until its first request.
 */
export function clientFor(cfg: Config): InferenceClient {
  return createInferenceClient({
    modelsDir: cfg.modelsDir,
    asrModel: cfg.asrModel,
    sentimentModel: cfg.sentimentModel,
    llmUrl: cfg.llmUrl,
    llmModel: cfg.llmModel,
    threads: cfg.inferenceThreads,
    asrIdleUnloadS: cfg.asrIdleUnloadS,
    vad: cfg.vad,
    asrEngine: cfg.asrEngine,
    embeddingModel: cfg.embeddingModel,
  });
}

/** Runs `fn` with a client, closes it, and turns failures into "earshot: …" and exit code 1. */
async function withClient(config: () => Config, fn: (client: InferenceClient) => Promise<void>): Promise<void> {
  const client = clientFor(config());
  try {
    await fn(client);
  } catch (err) {
    const message = err instanceof AudioDecodeError ? `cannot decode the recording: ${err.reason}` : (err as Error).message;
    process.stderr.write(`earshot: ${message}\n`);
    process.exitCode = 1;
  } finally {
    await client.close();
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The JSON of `transcribe --json`: `{ text, duration (s), timings: { decode_ms, load_ms, asr_ms,
 * total_ms } }`; total_ms is wall time in the CLI, so it includes the worker hand-off.
 */
export function transcriptJson(result: { text: string; durationS: number; timings: { decodeMs: number; loadMs: number; asrMs: number } }, totalMs: number) {
  const t = result.timings;
  return {
    text: result.text,
    duration: Math.round(result.durationS * 1000) / 1000,
    timings: { decode_ms: round(t.decodeMs), load_ms: round(t.loadMs), asr_ms: round(t.asrMs), total_ms: round(totalMs) },
  };
}

function toOptions(input: Partial<JsonlInput>): AnalyseOptions {
  return { prompt: input.prompt, enableDynamicProbing: input.enable_dynamic_probing, evaluatorConfig: input.evaluator_config };
}

function describeAnalysis(r: AnalysisResult): string {
  const i = r.ai_insights;
  return [
    `sentiment: ${i.sentiment} (${i.sentiment_score}) [${r.engine.sentiment}]`,
    `actionable: ${i.actionable}`,
    `key topics: ${i.key_topics.join(", ") || "-"}`,
    `summary: ${i.summary || "-"}`,
    `clarity: ${r.clarity}`,
    ...r.follow_up_questions.map((q) => `follow-up: ${q}`),
    ...Object.entries(r.custom_fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}`),
  ].join("\n");
}

/** Parses one `--jsonl` line; returns an error message instead of throwing. */
function parseLine(line: string): JsonlInput | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "not JSON";
  }
  if (typeof value !== "object" || value === null || typeof (value as { text?: unknown }).text !== "string") {
    return 'expected an object with a string "text"';
  }
  return value as JsonlInput;
}

/** `analyse --jsonl`: one result (or `{"error", "line"}`) per non-empty input line, in input order. */
async function analyseJsonl(client: InferenceClient): Promise<void> {
  // node:readline loads here, not at every start of the binary (bench/startup.ts).
  const { createInterface } = await import("node:readline");
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const inFlight: Promise<string>[] = [];
  let lineNo = 0;
  let failures = 0;
  const flushOne = async () => process.stdout.write((await inFlight.shift()!) + "\n");
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === "") continue;
    const input = parseLine(line);
    const at = lineNo;
    inFlight.push(
      typeof input === "string"
        ? Promise.resolve(JSON.stringify({ error: input, line: at })).finally(() => failures++)
        : client.analyse(input.text, toOptions(input)).then((r) => JSON.stringify(r)),
    );
    if (inFlight.length >= JSONL_WINDOW) await flushOne();
  }
  while (inFlight.length > 0) await flushOne();
  if (failures > 0) {
    process.stderr.write(`earshot: ${failures} input line(s) could not be analysed\n`);
    process.exitCode = 1;
  }
}

/**
 * Registers `transcribe FILE [--json]` and `analyse [TEXT] [--json | --jsonl]`.
 * @param config reads the configuration when a command runs (models directory and ids, LLM URL)
 */
export function registerInferenceCommands(program: Command, config: () => Config): void {
  program
    .command("transcribe <file>")
    .description("transcribe a recording (WAV, WebM/Opus, Ogg/Opus) with the local Whisper model")
    .option("--json", "print {text, duration, timings} as JSON")
    .action(async (file: string, o: { json?: boolean }) => {
      await withClient(config, async (client) => {
        const audio = new Uint8Array(await readFile(file));
        const started = performance.now();
        const result = await client.transcribe(audio, { priority: "live" });
        const json = transcriptJson(result, performance.now() - started);
        process.stdout.write((o.json ? JSON.stringify(json) : json.text) + "\n");
      });
    });
  program
    .command("analyse [text]")
    .alias("analyze")
    .description("insights of one answer (sentiment, topics, summary, clarity, follow-ups), or of JSON lines on stdin")
    .option("--json", "print the result as JSON")
    .option("--jsonl", 'read {"text": …} objects, one per line, from stdin; write one result per line')
    .option("--prompt <prompt>", "the question the text answers (for follow-up questions)")
    .option("--probe", "generate follow-up questions when clarity is below the threshold")
    .option("--clarity-threshold <n>", "0..1 (default 0.6)", Number)
    .option("--max-follow-ups <n>", "0..5 (default 1)", Number)
    .option("--custom-fields <names>", "comma-separated field names to extract")
    .action(
      async (
        text: string | undefined,
        o: { json?: boolean; jsonl?: boolean; prompt?: string; probe?: boolean; clarityThreshold?: number; maxFollowUps?: number; customFields?: string },
      ) => {
        if (o.jsonl) {
          if (text !== undefined) throw new Error("give either TEXT or --jsonl (stdin), not both");
          await withClient(config, analyseJsonl);
          return;
        }
        if (text === undefined) throw new Error("give the TEXT to analyse, or --jsonl to read JSON lines from stdin");
        await withClient(config, async (client) => {
          const evaluatorConfig = {
            ...(o.clarityThreshold !== undefined ? { clarity_threshold: o.clarityThreshold } : {}),
            ...(o.maxFollowUps !== undefined ? { max_follow_ups: o.maxFollowUps } : {}),
            ...(o.customFields
              ? {
                  custom_fields: o.customFields
                    .split(",")
                    .map((s) => s.trim())
                    .filter(Boolean),
                }
              : {}),
          };
          const result = await client.analyse(text, { prompt: o.prompt, enableDynamicProbing: !!o.probe, evaluatorConfig }, { priority: "live" });
          process.stdout.write((o.json ? JSON.stringify(result) : describeAnalysis(result)) + "\n");
        });
      },
    );
}
