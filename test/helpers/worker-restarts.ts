/**
 * @module test/helpers/worker-restarts
 * A child process for src/ai/inference-client.test.ts: transcribes with the transformers engine
 * (ONNX Runtime) and drops the worker mid-transcription `argv[2]` times (default 20), at delays
 * spread over the transcription, then closes the client during one. Prints "survived N" and
 * exits 0; an abort of the process (exit 134) is the defect the test looks for, and it must not
 * take the test runner down with it, hence the separate process.
 */
import { createInferenceClient } from "../../src/ai/inference-client.ts";
import { HEARING_ASR_MODEL, HEARING_MODELS_DIR, makeScratchDir, speechWav } from "./audio-fixtures.ts";

const rounds = Number(process.argv[2] ?? 20);
const scratch = makeScratchDir();
const client = createInferenceClient({ modelsDir: HEARING_MODELS_DIR, asrModel: HEARING_ASR_MODEL, sentimentModel: "none", asrEngine: "transformers" });
const wav = await speechWav(scratch.dir, "hello there, this sentence keeps the model busy for a while");
const started = performance.now();
await client.transcribe(wav);
const oneMs = performance.now() - started;
let died = 0;
for (let i = 0; i < rounds; i++) {
  const pending = client.transcribe(wav).then(
    () => "done",
    (err: { code?: string }) => err.code,
  );
  await Bun.sleep(((i * 37) % 100) * (oneMs / 100)); // somewhere inside the transcription
  client.restartWorker();
  if ((await pending) === "WORKER_DIED") died++;
}
const last = client.transcribe(wav).catch((err: { code?: string }) => err.code);
await Bun.sleep(oneMs / 3);
await client.close();
console.log(`survived ${rounds} (${died} cut mid-request), close: ${await last}`);
scratch.remove();
