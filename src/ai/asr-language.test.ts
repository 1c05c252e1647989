/**
 * @module ai/asr-language.test
 * Transcription in the link's language (issue 17), through the real inference worker and the
 * fixture Whisper (`whisper-tiny-random`, an English-only model like `*.en`): English-only models
 * transcribe English links and refuse other languages with LANGUAGE_UNSUPPORTED and an operator's
 * message; a multilingual model (the same fixture with a multilingual generation config — its
 * tokenizer already has Whisper's language tokens) transcribes in the language asked for, and
 * detects the language when none is asked.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createInferenceClient, InferenceError } from "./inference-client.ts";
import {
  FIXTURE_ASR_MODEL,
  FIXTURE_MODELS_DIR,
  FIXTURE_TRANSCRIPT,
  makeScratchDir,
  multilingualWhisperFixture,
  speechWav,
} from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();

const englishOnly = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "tiny-sentiment-3class" });
const multilingual = createInferenceClient({
  modelsDir: multilingualWhisperFixture(scratch.dir),
  asrModel: "whisper-multilingual-random",
  sentimentModel: "tiny-sentiment-3class",
});
afterAll(async () => {
  await englishOnly.close();
  await multilingual.close();
  scratch.remove();
});

const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

describe("transcription in the link's language", () => {
  test("an English-only model transcribes an English link (en, en-GB) and reports en", async () => {
    const wav = await speechWav(scratch.dir);
    for (const language of ["en", "en-GB", null]) {
      const result = await englishOnly.transcribe(wav, { language });
      expect([result.text, result.language]).toEqual([FIXTURE_TRANSCRIPT, "en"]);
    }
  });

  test("an English-only model refuses a German link with an operator's message, not a transcript", async () => {
    const err = await rejectionOf(englishOnly.transcribe(await speechWav(scratch.dir), { language: "de" }));
    expect(err).toBeInstanceOf(InferenceError);
    expect((err as InferenceError).code).toBe("LANGUAGE_UNSUPPORTED");
    expect((err as InferenceError).message).toContain('transcribes English only, and this link\'s language is "de"');
    expect((err as InferenceError).message).toContain("earshot models fetch --model Xenova/whisper-base");
  });

  test("a multilingual model transcribes with the link's language set, and detects it when the link has none", async () => {
    const wav = await speechWav(scratch.dir);
    const german = await multilingual.transcribe(wav, { language: "de-AT" });
    // The fixture's random weights answer its English prompt with the fixture transcript; the
    // multilingual prompt (<|de|><|transcribe|>) changes what it decodes, showing the language got through.
    expect(german.language).toBe("de");
    expect(german.text).toContain("fixture transcript");
    expect(german.text).not.toBe(FIXTURE_TRANSCRIPT);
    const detected = await multilingual.transcribe(wav);
    expect(detected.text).toContain("fixture transcript");
    expect(detected.language).toMatch(/^[a-z]{2,3}$/);
    const err = await rejectionOf(multilingual.transcribe(wav, { language: "tlh" }));
    expect((err as InferenceError).code).toBe("LANGUAGE_UNSUPPORTED");
  });
});
