/**
 * @module ai/asr-hearing.test
 * The audio path hears what was said (issue 27, "A fixture that hears"): espeak-ng speech in the
 * formats respondents send — 22.05 kHz mono WAV, 44.1 kHz and 48 kHz stereo WAV (one of them
 * speaking on the left channel only), Ogg/Opus and Chromium's WebM/Opus, a recording longer than
 * Whisper's 30 s window, pauses cut by the voice-activity step — decoded by `decodeAudio` and
 * transcribed by the hearing Whisper fixture, which must give back the spoken words, with
 * segments where they were spoken — on every engine (the fixture ships ONNX files for transformers.js
 * and `ggml-model.bin` for whisper.cpp). A resampler at the wrong rate, a channel dropped or
 * interleaved samples read as mono, or a window lost, garbles the words and fails these tests.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { AsrResult } from "./asr.ts";
import { createAsrEngine, type AsrEngineName } from "./asr-engine.ts";
import { decodeAudio } from "./audio.ts";
import { HEARING_ASR_MODEL, HEARING_MODELS_DIR, makeScratchDir, oggOpusOf, speechWav, webmFixture } from "../../test/helpers/audio-fixtures.ts";
import { expectHeard } from "../../test/helpers/hearing.ts";
import { pauseClip } from "../../test/helpers/pause-clips.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

/** espeak-ng's WAV converted by sox to the output `format` (rate, channels), then `effects` (remix…). */
async function soxed(wav: Uint8Array, name: string, format: string[], effects: string[] = []): Promise<Uint8Array> {
  const input = path.join(scratch.dir, `${name}-in.wav`);
  const output = path.join(scratch.dir, `${name}.wav`);
  await Bun.write(input, wav);
  const result = Bun.spawnSync(["sox", input, ...format, output, ...effects]);
  if (result.exitCode !== 0) throw new Error(`sox failed: ${result.stderr.toString()}`);
  return new Uint8Array(readFileSync(output));
}

/** The hearing fixture on `engine`, without and with the voice-activity step. */
function hearingOn(engine: AsrEngineName) {
  const asr = createAsrEngine(HEARING_MODELS_DIR, HEARING_ASR_MODEL, 1, "off", engine);
  const asrWithVad = createAsrEngine(HEARING_MODELS_DIR, HEARING_ASR_MODEL, 1, "energy", engine);
  afterAll(() => Promise.all([asr.unload(), asrWithVad.unload()]));
  return async (bytes: Uint8Array, withVad = false): Promise<AsrResult & { durationS: number }> => {
    const { pcm, durationS } = await decodeAudio(bytes);
    return { ...(await (withVad ? asrWithVad : asr).transcribe(pcm, { durationS })), durationS };
  };
}

const SENTENCES = ["refund my order please", "delivery was late"];
const long = pauseClip(scratch.dir, "long", [{ silenceS: 1 }, { say: SENTENCES[0]! }, { silenceS: 33 }, { say: SENTENCES[1]! }, { silenceS: 1 }]);

/** Every sentence's words are in the segments that overlap where it was spoken (± `slackS`). */
function expectSegmentsWhereSpoken(result: AsrResult, slackS: number): void {
  SENTENCES.forEach((said, i) => {
    const [from, to] = long.words[i]!;
    const near = result.segments.filter((s) => s.end_s >= from - slackS && s.start_s <= to + slackS);
    expectHeard(near.map((s) => s.text).join(" "), said);
  });
}

describe.each(["transformers", "whispercpp"] as const)("%s engine", (engine) => {
  const hear = hearingOn(engine);

  test("22.05 kHz mono WAV (espeak-ng's own output) → the spoken words", async () => {
    const said = "the price is too high";
    expectHeard((await hear(await speechWav(scratch.dir, said))).text, said);
  });

  test("44.1 kHz stereo WAV → the spoken words", async () => {
    const said = "refund my order please";
    const wav = await soxed(await speechWav(scratch.dir, said), "stereo441", ["-r", "44100", "-c", "2"]);
    expectHeard((await hear(wav)).text, said);
  });

  test("48 kHz stereo WAV speaking on the left channel only → the spoken words", async () => {
    const said = "support was great";
    const wav = await soxed(await speechWav(scratch.dir, said), "left48", ["-r", "48000"], ["remix", "1", "0"]);
    expectHeard((await hear(wav)).text, said);
  });

  test("Ogg/Opus and Chromium's WebM/Opus → the spoken words", async () => {
    const said = "delivery was late";
    expectHeard((await hear(await oggOpusOf(scratch.dir, await speechWav(scratch.dir, said)))).text, said);
    expectHeard((await hear(await webmFixture())).text, "hello there");
  });

  test("a recording longer than Whisper's 30 s window: every window's words, segments where they were spoken", async () => {
    expect(long.words[1]![0]).toBeGreaterThan(30);
    const result = await hear(new Uint8Array(readFileSync(long.file)));
    expect(result.durationS).toBeGreaterThan(33);
    for (const said of SENTENCES) expectHeard(result.text, said);
    expectSegmentsWhereSpoken(result, 2);
  });

  test("a pause cut by the voice-activity step: the words, their segment timed in the original recording", async () => {
    const said = "refund my order please";
    const late = pauseClip(scratch.dir, "late", [{ silenceS: 12 }, { say: said }, { silenceS: 2 }]);
    const result = await hear(new Uint8Array(readFileSync(late.file)), true);
    expect(result.whisperS).toBeLessThan(5);
    expectHeard(result.text, said);
    const [from, to] = late.words[0]!;
    const near = result.segments.filter((s) => s.end_s >= from - 1 && s.start_s <= to + 1);
    expectHeard(near.map((s) => s.text).join(" "), said);
  });
});
