/**
 * `earshot transcribe` and `earshot analyse` as real processes (`bun src/cli.ts …`), on the
 * fixture models chosen through EARSHOT_MODELS_DIR / EARSHOT_ASR_MODEL / EARSHOT_SENTIMENT_MODEL:
 * the hearing Whisper fixture (it transcribes the words spoken) and the staged sentiment fixture.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmtBody, riffWav } from "../helpers/audio-fixtures.ts";
import { HEARING_ASR_MODEL, HEARING_MODELS_DIR } from "../helpers/fixtures.ts";
import { expectHeard } from "../helpers/hearing.ts";
import { REPO_DIR, runCli } from "../helpers/process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "earshot-cli-ai-"));
const dataDir = path.join(scratch, "data");
const FIXTURE_ENV = { EARSHOT_MODELS_DIR: HEARING_MODELS_DIR, EARSHOT_ASR_MODEL: HEARING_ASR_MODEL, EARSHOT_SENTIMENT_MODEL: "tiny-sentiment-3class" };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const earshot = (args: string[], env: Record<string, string> = FIXTURE_ENV) => runCli(args, { dataDir, env });

/** Runs the CLI with `stdin` piped in. */
async function earshotWithStdin(args: string[], stdin: string) {
  const proc = Bun.spawn([process.execPath, path.join(REPO_DIR, "src", "cli.ts"), ...args], {
    cwd: REPO_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...FIXTURE_ENV },
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe("earshot transcribe", () => {
  test("--json prints {text, duration, timings} for WAV and Chromium WebM", async () => {
    const wav = path.join(scratch, "hello.wav");
    expect(Bun.spawnSync(["espeak-ng", "-w", wav, "hello there"]).exitCode).toBe(0);
    const r = await earshot(["transcribe", wav, "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expectHeard(out.text, "hello there");
    expect(out.duration).toBeGreaterThan(0.5);
    expect(Object.keys(out.timings)).toEqual(["decode_ms", "load_ms", "asr_ms", "total_ms"]);
    expect(out.timings.load_ms).toBeGreaterThan(0);

    const webm = await earshot(["transcribe", path.join(REPO_DIR, "test", "fixtures", "audio", "hello-there.webm")]);
    expect(webm.code).toBe(0);
    expect(webm.stdout.endsWith("\n")).toBe(true);
    expectHeard(webm.stdout, "hello there");
  });

  test("undecodable audio or a missing model: one line on stderr, exit 1", async () => {
    const junk = path.join(scratch, "junk.wav");
    writeFileSync(junk, "not audio at all");
    const bad = await earshot(["transcribe", junk, "--json"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("earshot: cannot decode the recording: the file is not WAV, WebM or Ogg audio (unrecognised leading bytes)\n");
    // Issue 22: the same one reading of a WAV as the upload check — a file with two fmt chunks is refused.
    const twoFmt = path.join(scratch, "two-fmt.wav");
    const fmt = (rateHz: number) => fmtBody({ tag: 7, rateHz, bits: 8 });
    writeFileSync(
      twoFmt,
      riffWav([
        ["fmt ", fmt(100)],
        ["fmt ", fmt(8_000)],
        ["data", new Uint8Array(80_000).fill(0xff)],
      ]),
    );
    const ambiguous = await earshot(["transcribe", twoFmt]);
    expect([ambiguous.code, ambiguous.stderr]).toEqual([1, "earshot: cannot decode the recording: the WAV file has two fmt chunks; a recording has one\n"]);

    const wav = path.join(scratch, "hello.wav");
    const missing = await earshot(["transcribe", wav], { ...FIXTURE_ENV, EARSHOT_ASR_MODEL: "Xenova/whisper-base.en" });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("earshot models fetch");
  });
});

describe("earshot analyse", () => {
  test("--json TEXT prints the insights, with the engine that produced them", async () => {
    const r = await earshot([
      "analyse",
      "--json",
      "--probe",
      "--prompt",
      "What should we improve?",
      "--custom-fields",
      "feature",
      "The checkout page keeps crashing when I pay with my card",
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.ai_insights).toMatchObject({ sentiment: "negative", actionable: true });
    expect(out.engine.sentiment).toBe("transformer:tiny-sentiment-3class");
    expect(Object.keys(out.custom_fields)).toEqual(["feature"]);
    expect(Object.keys(out).sort()).toEqual(["ai_insights", "clarity", "custom_fields", "engine", "follow_up_questions"]);
  });

  test("without the sentiment model's files the embedded trained model answers (issue 16)", async () => {
    const r = await earshot(["analyse", "--json", "I love the new dashboard"], { ...FIXTURE_ENV, EARSHOT_SENTIMENT_MODEL: "absent/model" });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).engine.sentiment).toBe("trained:linear-v2");
  });

  test("--jsonl: one result per input line, in order; bad lines get an error object and exit 1", async () => {
    const input =
      [
        JSON.stringify({ text: "I love the new dashboard" }),
        "",
        JSON.stringify({
          text: "it was ok",
          prompt: "How was it?",
          enable_dynamic_probing: true,
          evaluator_config: { clarity_threshold: 0.95, max_follow_ups: 1 },
        }),
        ...Array.from({ length: 12 }, (_, i) => JSON.stringify({ text: `Answer number ${i}: the export is broken` })),
      ].join("\n") + "\n";
    const r = await earshotWithStdin(["analyse", "--jsonl"], input);
    expect(r.code).toBe(0);
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(14);
    expect(out[0].ai_insights.sentiment).toBe("positive");
    expect(out[1].follow_up_questions).toHaveLength(1);
    expect(out[13].ai_insights.summary).toContain("Answer number 11");

    const bad = await earshotWithStdin(["analyse", "--jsonl"], `{"text": "fine"}\nnot json\n{"nope": 1}\n`);
    expect(bad.code).toBe(1);
    const lines = bad.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[1]).toEqual({ error: "not JSON", line: 2 });
    expect(lines[2]).toEqual({ error: 'expected an object with a string "text"', line: 3 });
  });
});
