/**
 * @module test/helpers/fixtures
 * The one place tests and benches name their fixtures: the staged fixture models of
 * `../shared/models/fixture` (a Whisper with random weights that says one fixed sentence for any
 * sound and "" for silence, and tiny sentiment classifiers) and the committed audio recordings.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const REPO_DIR = path.resolve(import.meta.dir, "../..");

/** The staged fixture models (outside the repository, shared by every checkout). */
export const FIXTURE_MODELS_DIR = path.resolve(REPO_DIR, "..", "shared", "models", "fixture");
/** The fixture Whisper's id under {@link FIXTURE_MODELS_DIR}. */
export const FIXTURE_ASR_MODEL = "whisper-tiny-random";
/** The fixture sentiment classifier's id (three classes) under {@link FIXTURE_MODELS_DIR}. */
export const FIXTURE_SENTIMENT_MODEL = "tiny-sentiment-3class";
/** What the fixture Whisper transcribes any sound as. */
export const FIXTURE_TRANSCRIPT = "This is a fixture transcript.";

/** Chromium MediaRecorder's `audio/webm;codecs=opus` of espeak-ng "hello there", 1.5 s long. */
export const WEBM_FIXTURE_PATH = path.resolve(REPO_DIR, "test/fixtures/audio/hello-there.webm");
export const WEBM_FIXTURE_DURATION_S = 1.5;

/**
 * Models generated into the repository (not staged in ../shared): the tiny sentence-embedding
 * model of scripts/make-embedder-fixture.py (hand-set weights, NOT trained: words of one topic
 * share a direction), in `<dir>/tiny-embedder/`.
 */
export const EMBEDDER_FIXTURE_MODELS_DIR = path.resolve(REPO_DIR, "test/fixtures/models");
/** The fixture sentence-embedding model's id under {@link EMBEDDER_FIXTURE_MODELS_DIR}. */
export const FIXTURE_EMBEDDING_MODEL = "tiny-embedder";

/**
 * The hearing Whisper fixture (issue 27, scripts/hearing-fixture/): a tiny Whisper trained on
 * espeak-ng speech of a small vocabulary ({@link HEARING_VOCABULARY}), committed in
 * test/fixtures/models/whisper-hears (transformers.js fp32 + q8 ONNX, and whisper.cpp's
 * `ggml-model.bin`). Unlike the random fixture it transcribes the words it hears, so a resampling,
 * channel-mixing or windowing bug that garbles speech fails the voice tests.
 */
export const HEARING_ASR_MODEL = "whisper-hears";
const HEARING_MODEL_PATH = path.resolve(REPO_DIR, "test/fixtures/models", HEARING_ASR_MODEL);

/**
 * A models directory (EARSHOT_MODELS_DIR) holding the hearing Whisper and every staged fixture of
 * {@link FIXTURE_MODELS_DIR} (sentiment classifiers, the random Whisper): a scratch folder of
 * symlinks, made once per process and removed at its exit (nothing is written to ../shared).
 */
export const HEARING_MODELS_DIR = (() => {
  const dir = mkdtempSync(path.join(tmpdir(), "earshot-models-"));
  for (const entry of readdirSync(FIXTURE_MODELS_DIR)) symlinkSync(path.join(FIXTURE_MODELS_DIR, entry), path.join(dir, entry));
  symlinkSync(HEARING_MODEL_PATH, path.join(dir, HEARING_ASR_MODEL));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
})();

/**
 * Words the hearing fixture knows (the digits and a few dozen feedback words; its training data,
 * scripts/hearing-fixture/data.py). Sentences made of these are transcribed from espeak-ng's
 * voices; anything else comes back as the nearest words it knows.
 */
export const HEARING_VOCABULARY = `zero one two three four five six seven eight nine the price is too high checkout
delivery great slow support refund yes no hello there thank you very good bad app order late fast service was it and my
not happy love this product help please call me email staff friendly website broken payment failed cheap expensive easy
hard i`.split(/\s+/);
