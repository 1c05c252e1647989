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
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInferenceClient, InferenceError } from "./inference-client.ts";
import { FIXTURE_ASR_MODEL, FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, makeScratchDir, speechWav } from "./test-audio.ts";

const scratch = makeScratchDir();

/** A copy of the fixture Whisper whose generation config is multilingual (`lang_to_id`, `task_to_id`). */
function multilingualFixture(): string {
  const dir = path.join(scratch.dir, "models", "whisper-multilingual-random");
  cpSync(path.join(FIXTURE_MODELS_DIR, FIXTURE_ASR_MODEL), dir, { recursive: true });
  const tokens = (JSON.parse(readFileSync(path.join(dir, "tokenizer.json"), "utf8")) as { added_tokens: { id: number; content: string }[] }).added_tokens;
  const id = (content: string) => tokens.find((t) => t.content === content)!.id;
  const languages = tokens.filter((t) => /^<\|[a-z]{2,3}\|>$/.test(t.content));
  const configPath = path.join(dir, "generation_config.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  Object.assign(config, {
    is_multilingual: true,
    lang_to_id: Object.fromEntries(languages.map((t) => [t.content, t.id])),
    task_to_id: { transcribe: id("<|transcribe|>"), translate: id("<|translate|>") },
  });
  writeFileSync(configPath, JSON.stringify(config));
  return path.dirname(dir);
}

const englishOnly = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: FIXTURE_ASR_MODEL, sentimentModel: "tiny-sentiment-3class" });
const multilingual = createInferenceClient({
  modelsDir: multilingualFixture(),
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
