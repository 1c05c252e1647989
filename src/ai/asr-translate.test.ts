/**
 * @module ai/asr-translate.test
 * Whisper's own `translate` task (issue 24, "Non-English voice answers"), on the fixture Whisper
 * (random weights, English-only like `*.en`) and on its multilingual-configured copy: a
 * multilingual model translates non-English speech; English speech, and any speech to an
 * English-only model, get null (nothing to translate). The fixture's decoder is random with a
 * bias towards one sentence, and it happens to give the same text after `<|translate|>` as after
 * `<|transcribe|>`; to see that the translate task reaches the decoder, a second copy names, as
 * its translate token, one the fixture does react to (`<|notimestamps|>`).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createAsr, LanguageUnsupportedError } from "./asr.ts";
import { decodeAudio } from "./audio.ts";
import {
  FIXTURE_ASR_MODEL,
  FIXTURE_MODELS_DIR,
  FIXTURE_TRANSCRIPT,
  makeScratchDir,
  multilingualWhisperFixture,
  speechWav,
} from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());
const pcm = (await decodeAudio(await speechWav(scratch.dir))).pcm;
const multilingual = createAsr(multilingualWhisperFixture(scratch.dir), "whisper-multilingual-random", 1);
const englishOnly = createAsr(FIXTURE_MODELS_DIR, FIXTURE_ASR_MODEL, 1);

/** The multilingual copy whose `task_to_id.translate` is `<|notimestamps|>` (see the module comment). */
function probeFixture(): string {
  const dir = multilingualWhisperFixture(path.join(scratch.dir, "probe"));
  const model = path.join(dir, "whisper-probe-random");
  renameSync(path.join(dir, "whisper-multilingual-random"), model);
  const tokens = (JSON.parse(readFileSync(path.join(model, "tokenizer.json"), "utf8")) as { added_tokens: { id: number; content: string }[] }).added_tokens;
  const configPath = path.join(model, "generation_config.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  config.task_to_id.translate = tokens.find((t) => t.content === "<|notimestamps|>")!.id;
  writeFileSync(configPath, JSON.stringify(config));
  return dir;
}

describe("Asr.translate", () => {
  test("a multilingual model translates a German answer with its translate task, and the transcript is unchanged", async () => {
    const transcript = await multilingual.transcribe(pcm, { language: "de" });
    const translation = await multilingual.translate(pcm, { language: "de-AT" });
    expect(translation).not.toBeNull();
    expect(translation!.language).toBe("de");
    expect(translation!.text).toContain("fixture transcript");
    expect((await multilingual.transcribe(pcm, { language: "de" })).text).toBe(transcript.text);
  });

  test("the decoder gets the translate task: a translate token the fixture reacts to changes the output, not the transcript's", async () => {
    const probe = createAsr(probeFixture(), "whisper-probe-random", 1);
    const transcript = await probe.transcribe(pcm, { language: "de" });
    const translation = await probe.translate(pcm, { language: "de" });
    expect(transcript.text).toBe((await multilingual.transcribe(pcm, { language: "de" })).text);
    expect(translation!.text).toContain("fixture transcript");
    expect(translation!.text).not.toBe(transcript.text);
  });

  test("nothing to translate: English speech, or an English-only model (null, no error)", async () => {
    expect(await multilingual.translate(pcm, { language: "en-GB" })).toBeNull();
    expect(await englishOnly.translate(pcm, { language: "de" })).toBeNull();
    expect(await englishOnly.translate(pcm)).toBeNull();
    expect((await englishOnly.transcribe(pcm)).text).toBe(FIXTURE_TRANSCRIPT);
  });

  test("a language the multilingual model does not know is refused as by transcribe", async () => {
    expect(multilingual.translate(pcm, { language: "xx" })).rejects.toBeInstanceOf(LanguageUnsupportedError);
  });
});
