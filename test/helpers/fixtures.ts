/**
 * @module test/helpers/fixtures
 * The one place tests and benches name their fixtures: the staged fixture models of
 * `../shared/models/fixture` (a Whisper with random weights that says one fixed sentence for any
 * sound and "" for silence, and tiny sentiment classifiers) and the committed audio recordings.
 */
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
