/**
 * @module ai/asr-vad.test
 * Silence skipped before Whisper (issue 27), through the real inference worker and the fixture
 * Whisper (which answers "This is a fixture transcript." for any sound it is given): audio
 * without speech comes back empty without the model even loading, where the same audio with
 * `vad: "off"` gets the fixture's made-up text; a phrase after a 5 s pause is given to the hearing
 * Whisper fixture without the pause, its words are heard, and its segment keeps its real start
 * time in the recording.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createAsr } from "./asr.ts";
import { decodeAudio } from "./audio.ts";
import { createInferenceClient, InferenceError } from "./inference-client.ts";
import { createLiveTranscriber, type LiveServerMessage } from "./live-transcriber.ts";
import {
  FIXTURE_ASR_MODEL,
  FIXTURE_MODELS_DIR,
  FIXTURE_TRANSCRIPT,
  HEARING_ASR_MODEL,
  HEARING_MODELS_DIR,
  makeScratchDir,
  oggOpusOf,
  webmOfOgg,
} from "../../test/helpers/audio-fixtures.ts";
import { expectHeard } from "../../test/helpers/hearing.ts";
import { pauseClip } from "../../test/helpers/pause-clips.ts";

const scratch = makeScratchDir();
const clientWith = (vad: "off" | "energy") =>
  createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "tiny-sentiment-3class", threads: 1, vad });
const withVad = clientWith("energy");
const withoutVad = clientWith("off");
const hearing = createInferenceClient({ modelsDir: HEARING_MODELS_DIR, asrModel: HEARING_ASR_MODEL, sentimentModel: "none", threads: 1, vad: "energy" });
const hearingWithoutVad = createInferenceClient({ modelsDir: HEARING_MODELS_DIR, asrModel: HEARING_ASR_MODEL, sentimentModel: "none", threads: 1, vad: "off" });
afterAll(async () => {
  await withVad.close();
  await withoutVad.close();
  await hearing.close();
  await hearingWithoutVad.close();
  scratch.remove();
});

const noise = pauseClip(scratch.dir, "noise", [{ noiseS: 4, amplitude: 0.02 }]);
const late = pauseClip(scratch.dir, "late", [{ silenceS: 5 }, { say: "the checkout was slow" }], 0.004);

test("no speech: empty transcript, no segments, and Whisper never loads; without the step the fixture invents text", async () => {
  const bytes = new Uint8Array(readFileSync(noise.file));
  const skipped = await withVad.transcribe(bytes);
  expect(skipped.text).toBe("");
  expect(skipped.segments).toEqual([]);
  expect(skipped.durationS).toBeCloseTo(4, 2);
  // The first request of a fresh worker: a Whisper run would have loaded the model.
  expect(skipped.timings.loadMs).toBe(0);

  const heard = await withoutVad.transcribe(bytes);
  expect(heard.text).toBe(FIXTURE_TRANSCRIPT);
  expect(heard.timings.loadMs).toBeGreaterThan(0);
});

test("no speech keeps the language rules: English-only model → en, a German link → LANGUAGE_UNSUPPORTED", async () => {
  const bytes = new Uint8Array(readFileSync(noise.file));
  expect((await withVad.transcribe(bytes, { language: null })).language).toBe("en");
  const err = await withVad.transcribe(bytes, { language: "de" }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InferenceError);
  expect((err as InferenceError).code).toBe("LANGUAGE_UNSUPPORTED");
});

test("a phrase after a 5 s pause: its words are heard, its segment starts where it was spoken, not at 0", async () => {
  const bytes = new Uint8Array(readFileSync(late.file));
  const spokenS = late.words[0]![0];
  expect(spokenS).toBeGreaterThan(5);
  const result = await hearing.transcribe(bytes);
  expectHeard(result.text, "checkout was slow");
  expect(result.segments).toHaveLength(1);
  expect(Math.abs(result.segments[0]!.start_s - spokenS)).toBeLessThan(0.3);
  expect(result.segments[0]!.end_s).toBeGreaterThanOrEqual(late.words[0]![1] - 0.01);
  expect(result.segments[0]!.end_s).toBeLessThanOrEqual(result.durationS);

  // Without the cut Whisper sees the pause, and its first segment starts at 0 (Whisper's rule).
  const unskipped = await hearingWithoutVad.transcribe(bytes);
  expectHeard(unskipped.text, "checkout was slow");
  expect(unskipped.segments[0]!.start_s).toBe(0);
});

test("Whisper is given the speech without the pause", async () => {
  const { pcm, durationS } = await decodeAudio(new Uint8Array(readFileSync(late.file)));
  const asr = createAsr(HEARING_MODELS_DIR, HEARING_ASR_MODEL, 1, "energy");
  const result = await asr.transcribe(pcm, { durationS });
  expectHeard(result.text, "checkout was slow");
  expect(result.whisperS).toBeLessThan(durationS - 4.5);
  expect(result.whisperS).toBeGreaterThan(late.words[0]![1] - late.words[0]![0]);
  const all = await createAsr(FIXTURE_MODELS_DIR, FIXTURE_ASR_MODEL, 1, "off").transcribe(pcm, { durationS });
  expect(all.whisperS).toBeCloseTo(durationS, 3);
});

test("live partials go through the same step: a WebM stream of room noise gives empty partials and final", async () => {
  const webm = await webmOfOgg(await oggOpusOf(scratch.dir, new Uint8Array(readFileSync(noise.file))));
  const stream = async (client: typeof withVad) => {
    const partials: string[] = [];
    const t = createLiveTranscriber({
      transcribe: (audio) => client.transcribe(audio, { priority: "live" }),
      send: (m: LiveServerMessage) => {
        if (m.type === "partial") partials.push(m.text);
      },
      intervalMs: 200,
    });
    for (let at = 0; at < webm.length; at += 4_000) {
      t.push(webm.subarray(at, at + 4_000));
      await Bun.sleep(50);
    }
    return { final: await t.finish(), partials };
  };
  const skipped = await stream(withVad);
  expect(skipped.final.text).toBe("");
  expect(skipped.final.duration).toBeGreaterThan(3.5);
  expect(skipped.partials.every((text) => text === "")).toBe(true);
  expect((await stream(withoutVad)).final.text).toBe(FIXTURE_TRANSCRIPT);
});
