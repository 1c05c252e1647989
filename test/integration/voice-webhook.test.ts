/**
 * The whole AI path as a consumer sees it (issues "Local AI" and "Webhook delivery"): a voice
 * answer submitted through the intake API of a real `earshot serve` is transcribed and analysed
 * in the worker, and only then does `response.submitted` reach a real HTTPS receiver — with the
 * transcript, duration and ai_insights — verified with the `standardwebhooks` package.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../helpers/https-receiver.ts";
import { makeSpeechWav } from "../helpers/audio.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-voice-hook-"));
let certs: TestCertificates | null = null;
let receiver: HttpsReceiver | null = null;
let server: RunningServer | null = null;
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("response.submitted carries the transcript and insights of a voice answer", async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Voice hooks", "--plan", "pro", "--json"], { dataDir })).stdout);
  server = await startServer({ dataDir, env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1", EARSHOT_WEBHOOK_CA_FILE: certs.caFile } });
  const api = async (method: string, p: string, body?: unknown, raw?: Uint8Array) => {
    const res = await fetch(server!.baseUrl + p, {
      method,
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": raw ? "audio/wav" : "application/json" },
      body: raw ? (raw as unknown as BodyInit) : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const link = (
    await api("POST", "/api/v1/links/", {
      name: "Voice feedback",
      questions: [{ prompt: "What should we fix first?", type: "voice" }],
      on_finished: { webhook_url: receiver.url, webhook_secret: "plain-shared-secret" },
    })
  ).json;
  const base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const session = (await api("POST", base, {})).json;
  const wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("the checkout page keeps crashing", path.join(dataDir, "s.wav"))));
  expect((await api("POST", `${base}${session.session_id}/answers/${link.questions[0].uuid}/audio/`, undefined, wav)).status).toBe(200);
  expect((await api("POST", `${base}${session.session_id}/submit/`, {})).status).toBe(200);

  await receiver.waitFor((rs) => rs.length >= 1, 60_000);
  const delivery = receiver.requests[0]!;
  const verified = new Webhook(Buffer.from("plain-shared-secret").toString("base64")).verify(delivery.body, delivery.headers) as any;
  expect(verified.type).toBe("response.submitted");
  const answer = verified.data.response.answers[0];
  expect(answer.transcription_status).toBe("completed");
  expect(answer.transcription).toBe("This is a fixture transcript.");
  expect(answer.duration).toBeGreaterThan(0.5);
  expect(answer.ai_insights).toMatchObject({
    sentiment: expect.stringMatching(/^(positive|neutral|negative)$/),
    key_topics: expect.any(Array),
    summary: expect.any(String),
    actionable: expect.any(Boolean),
  });
  expect(answer.audio_url).toContain("sig=");
  // The signed audio_url works for the consumer without an API key.
  const audio = await fetch(answer.audio_url.replace(/^http:\/\/localhost:\d+/, server.baseUrl));
  expect(audio.status).toBe(200);
  expect(receiver.requests.length).toBe(1); // only response.submitted was subscribed
});
