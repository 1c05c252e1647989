/**
 * @module test/e2e/intake-voice.test
 * End to end through real processes and real Chromium (DESIGN §9, docs/intake.md): a respondent
 * answers a text, a rating and a voice question on the intake page, and the API returns the
 * typed answers and the transcript. The same flow runs against the compiled binary when one is
 * available, survives a crash while jobs are queued, and, when real Whisper weights are
 * provided, transcribes the spoken words on each engine (transformers.js and whisper.cpp).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { makeSpeechWav, wavDurationSeconds } from "../helpers/audio.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import {
  FIXTURE_TRANSCRIPT,
  VOICE_PROMPT,
  answerInBrowser,
  answerTo,
  createVoiceLink,
  createWorkspace,
  expectAnswers,
  findBinary,
  isTranscribed,
  listResponses,
  makeDataDir,
  removeDir,
  runVoiceFlow,
  waitForResponse,
} from "./voice-flow.ts";

const REAL_MODELS_DIR = process.env.EARSHOT_TEST_REAL_MODELS_DIR;
const REAL_ASR_MODEL = process.env.EARSHOT_ASR_MODEL ?? "Xenova/whisper-tiny.en";
const SPOKEN = "The quick brown fox jumps over the lazy dog.";
const BINARY = findBinary();
/** Each test starts servers, a worker and Chromium; bunfig's timeout is not relied upon. */
const FLOW_TIMEOUT_MS = 120_000;

let audioDir: string;
let speechWav: string;

beforeAll(async () => {
  audioDir = await makeDataDir();
  speechWav = await makeSpeechWav(SPOKEN, path.join(audioDir, "speech.wav"));
});

afterAll(async () => {
  await removeDir(audioDir);
});

describe("intake page, voice answer, transcription", () => {
  test(
    "from source: answers are stored and the recording is transcribed",
    async () => {
      await runVoiceFlow({}, { wav: speechWav });
    },
    FLOW_TIMEOUT_MS,
  );

  test.skipIf(!BINARY)(
    `single executable${BINARY ? "" : " (skipped: set EARSHOT_BIN or build dist/earshot)"}: same flow`,
    async () => {
      await runVoiceFlow({ bin: [BINARY!] }, { wav: speechWav });
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    "a queued transcription survives kill -9 and completes after restart",
    async () => {
      const dataDir = await makeDataDir();
      const servers: RunningServer[] = [];
      try {
        const ws = await createWorkspace(dataDir);
        const paused = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
        servers.push(paused);
        const link = await createVoiceLink(paused, ws.api_key);
        await answerInBrowser(link.public_url, speechWav, 2000);

        const [queued] = await listResponses(paused, ws.api_key, link.uuid);
        expect(queued.status).toBe("completed");
        expect(answerTo(queued, VOICE_PROMPT).transcription_status).toBe("pending");

        paused.kill9();
        await paused.proc.exited;

        const restarted = await startServer({ dataDir });
        servers.push(restarted);
        const response = await waitForResponse(restarted, ws.api_key, link.uuid, isTranscribed);
        expect(response.uuid).toBe(queued.uuid);
        expectAnswers(response, (text) => expect(text).toBe(FIXTURE_TRANSCRIPT));
      } finally {
        for (const server of servers) await server.stop();
        await removeDir(dataDir);
      }
    },
    FLOW_TIMEOUT_MS,
  );

  // Every engine (issue 27): transformers.js reads the model's ONNX files, whisper.cpp its
  // ggml-model.bin (`earshot models fetch` installs both for the default model).
  for (const engine of ["transformers", "whispercpp"] as const) {
    test.skipIf(!REAL_MODELS_DIR)(
      `real Whisper weights, ${engine} engine${REAL_MODELS_DIR ? "" : " (skipped: set EARSHOT_TEST_REAL_MODELS_DIR to a models directory holding Xenova/whisper-tiny.en)"}: the spoken words come back`,
      async () => {
        const seconds = await wavDurationSeconds(speechWav);
        await runVoiceFlow(
          { env: { EARSHOT_MODELS_DIR: path.resolve(REAL_MODELS_DIR!), EARSHOT_ASR_MODEL: REAL_ASR_MODEL, EARSHOT_ASR_ENGINE: engine } },
          {
            wav: speechWav,
            recordMs: Math.ceil(seconds * 1000) + 300,
            expectTranscript: (text) => {
              const words = text.toLowerCase().replace(/[^a-z ]/g, " ");
              for (const word of ["quick", "brown", "fox", "lazy", "dog"]) expect(words).toContain(word);
            },
          },
        );
      },
      180_000,
    );
  }
});
