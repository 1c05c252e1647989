/**
 * Live transcription over the intake WebSocket (docs/intake.md, "Live transcription"): a real
 * `earshot serve` with the fixture Whisper, the committed Chromium WebM recording streamed in
 * MediaRecorder-sized chunks, partials at most every 1.5 s, a final on `{"type":"end"}`, and the
 * refusals (live transcription off, unknown session, submitted session) as HTTP errors; the
 * question's `max_duration` + 2 s bound, and a generic message when the model is missing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { oggOpusOf, toneWav, webmOfOgg } from "../helpers/audio-fixtures.ts";
import { FIXTURE_TRANSCRIPT } from "../helpers/fixtures.ts";

const WEBM = path.resolve(import.meta.dir, "..", "fixtures", "audio", "hello-there.webm");
const CHUNK_BYTES = 2_000; // ≈ 120 ms of Opus, the size MediaRecorder's 250 ms timeslices give
const CHUNK_EVERY_MS = 120;

const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-live-"));
let server: RunningServer;
let apiKey = "";
let wsSlug = "";

type Message = { type: string; text?: string; duration?: number; code?: string; message?: string; interval_ms?: number };

async function api(method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.baseUrl}/api/v1/${p}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function makeLink(slug: string, live: boolean, configuration: Record<string, unknown> = {}) {
  const link = await api("POST", "links/", {
    name: slug,
    slug,
    settings: { live_transcription: live },
    questions: [{ prompt: "Tell us more", type: "voice", configuration }],
  });
  const session = await api("POST", `intake/${wsSlug}/${slug}/sessions/`, {});
  return { slug, questionUuid: link.questions[0].uuid as string, sessionId: session.session_id as string };
}

const liveUrl = (slug: string, sessionId: string, questionUuid: string, on = server) =>
  `${on.baseUrl.replace("http", "ws")}/api/v1/intake/${wsSlug}/${slug}/sessions/${sessionId}/live/?question_uuid=${questionUuid}`;

/** Streams the WebM in chunks, then `end`; resolves with every message, arrival times and the close code. */
function streamRecording(url: string, bytes: Uint8Array): Promise<{ messages: (Message & { atMs: number })[]; closeCode: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    const messages: (Message & { atMs: number })[] = [];
    const started = performance.now();
    socket.onmessage = async (event) => {
      const message = JSON.parse(String(event.data)) as Message;
      messages.push({ ...message, atMs: performance.now() - started });
      if (message.type !== "ready") return;
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
        socket.send(bytes.subarray(at, at + CHUNK_BYTES));
        await Bun.sleep(CHUNK_EVERY_MS);
      }
      // Let a partial of the whole recording arrive before stopping: one that started after the
      // last chunk (at least one interval later); on a busy machine that takes longer than 1.6 s.
      // (No audio, or an error message, means there is no partial to wait for.)
      const lastChunkAtMs = performance.now() - started;
      const deadline = performance.now() + (bytes.length > 0 ? 10_000 : 1_600);
      for (; performance.now() < deadline; await Bun.sleep(50)) {
        if (performance.now() - started < lastChunkAtMs + 1_600) continue;
        if (bytes.length === 0 || messages.some((m) => m.type === "error" || (m.type === "partial" && m.atMs > lastChunkAtMs))) break;
      }
      socket.send(JSON.stringify({ type: "end" }));
    };
    socket.onerror = () => reject(new Error("the WebSocket failed"));
    socket.onclose = (event) => resolve({ messages, closeCode: event.code });
  });
}

/**
 * Sends the upgrade request a browser sends, over a raw socket (fetch drops the Upgrade header),
 * and reads the refusal: its status and problem+json `code`.
 */
function upgradeRefusal(url: string): Promise<{ status: number; code: string | undefined }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let raw = "";
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      );
    });
    socket.on("data", (data) => {
      raw += data.toString();
      const [head, body = ""] = raw.split("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(head!)?.[1] ?? NaN);
      if (body.length < length) return;
      socket.destroy();
      resolve({ status: Number(head!.split(" ")[1]), code: (JSON.parse(body) as { code?: string }).code });
    });
    socket.on("error", reject);
  });
}

beforeAll(async () => {
  const created = await runCli(["workspace", "create", "--name", "Live", "--slug", "live-ws", "--json"], { dataDir });
  ({ api_key: apiKey, workspace_slug: wsSlug } = JSON.parse(created.stdout));
  server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("live transcription WebSocket", () => {
  test("streams partials while recording and a final on end", async () => {
    const { slug, sessionId, questionUuid } = await makeLink("live-on", true);
    const bytes = new Uint8Array(await Bun.file(WEBM).arrayBuffer());
    const { messages, closeCode } = await streamRecording(liveUrl(slug, sessionId, questionUuid), bytes);

    expect(messages[0]).toMatchObject({ type: "ready", interval_ms: 1500 });
    const partials = messages.filter((m) => m.type === "partial");
    expect(partials.length).toBeGreaterThanOrEqual(1);
    expect(partials.at(-1)!.text).toBe(FIXTURE_TRANSCRIPT);
    // Throttled: partial k starts ≥ (k-1)·1.5 s after the first chunk was sent, and arrives later still.
    const firstChunkAtMs = messages[0]!.atMs;
    partials.forEach((p, k) => expect(p.atMs - firstChunkAtMs).toBeGreaterThanOrEqual(k * 1_500));
    const final = messages.at(-1)!;
    expect(final).toMatchObject({ type: "final", text: FIXTURE_TRANSCRIPT });
    expect(Math.abs(final.duration! - 1.5)).toBeLessThan(0.1);
    expect(closeCode).toBe(1000);
  }, 30_000);

  test("end before any audio gives an empty final", async () => {
    const { slug, sessionId, questionUuid } = await makeLink("live-empty", true);
    const { messages, closeCode } = await streamRecording(liveUrl(slug, sessionId, questionUuid), new Uint8Array(0));
    expect(messages.map((m) => m.type)).toEqual(["ready", "final"]);
    expect(messages[1]).toMatchObject({ text: "", duration: 0 });
    expect(closeCode).toBe(1000);
  }, 15_000);

  test("refused before the upgrade: live off, unknown session or question, submitted session", async () => {
    const off = await makeLink("live-off", false);
    const on = await makeLink("live-refusals", true);
    const status = (url: string) => upgradeRefusal(url);
    expect(await status(liveUrl(off.slug, off.sessionId, off.questionUuid))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(await status(liveUrl(on.slug, "ses_unknown", on.questionUuid))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(await status(liveUrl(on.slug, on.sessionId, crypto.randomUUID()))).toEqual({ status: 404, code: "NOT_FOUND" });

    await api("POST", `intake/${wsSlug}/${on.slug}/sessions/${on.sessionId}/submit/`, {});
    expect(await status(liveUrl(on.slug, on.sessionId, on.questionUuid))).toEqual({ status: 409, code: "ALREADY_SUBMITTED" });

    // A WebSocket client sees the refusal as a failed connection.
    const closed = await new Promise<boolean>((resolve) => {
      const socket = new WebSocket(liveUrl(off.slug, off.sessionId, off.questionUuid));
      socket.onopen = () => resolve(false);
      socket.onclose = () => resolve(true);
    });
    expect(closed).toBe(true);
  }, 15_000);

  test("a recording longer than the question's max_duration + 2 s ends in AUDIO_TOO_LONG, not a transcript", async () => {
    const { slug, sessionId, questionUuid } = await makeLink("live-too-long", true, { max_duration: 1 });
    const webm = await webmOfOgg(await oggOpusOf(dataDir, toneWav({ seconds: 10, rateHz: 16_000 })));
    const { messages, closeCode } = await streamRecording(liveUrl(slug, sessionId, questionUuid), webm);
    const last = messages.at(-1)!;
    expect(last).toMatchObject({ type: "error", code: "AUDIO_TOO_LONG", message: "The recording is longer than this question allows." });
    expect(messages.some((m) => m.type === "final")).toBe(false);
    // Partials stop at the bound too: none covers more than the 3 s accepted.
    for (const p of messages.filter((m) => m.type === "partial")) expect(p.duration!).toBeLessThanOrEqual(3);
    expect(closeCode).toBe(1011);
  }, 60_000);

  test("with the model missing, the respondent gets a generic message and the operator's log gets the details", async () => {
    const emptyModels = mkdtempSync(path.join(tmpdir(), "earshot-no-models-"));
    const otherData = mkdtempSync(path.join(tmpdir(), "earshot-live-nomodel-"));
    const bare = await startServer({ dataDir: otherData, env: { EARSHOT_JOBS_PAUSED: "1", EARSHOT_MODELS_DIR: emptyModels } });
    try {
      const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Bare", "--slug", "bare-ws", "--json"], { dataDir: otherData })).stdout);
      const call = async (method: string, p: string, body: unknown) =>
        (
          await fetch(`${bare.baseUrl}/api/v1/${p}`, {
            method,
            headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).json() as Promise<any>;
      const link = await call("POST", "links/", {
        name: "nomodel",
        slug: "nomodel",
        settings: { live_transcription: true },
        questions: [{ prompt: "Tell us more", type: "voice" }],
      });
      const session = await call("POST", `intake/bare-ws/nomodel/sessions/`, {});
      const url = `${bare.baseUrl.replace("http", "ws")}/api/v1/intake/bare-ws/nomodel/sessions/${session.session_id}/live/?question_uuid=${link.questions[0].uuid}`;
      const { messages } = await streamRecording(url, new Uint8Array(await Bun.file(WEBM).arrayBuffer()));
      const errors = messages.filter((m) => m.type === "error");
      expect(errors.length).toBeGreaterThanOrEqual(1);
      for (const e of errors) {
        expect(e).toMatchObject({
          code: "MODEL_MISSING",
          message: "Live transcription is not available right now; your recording is still saved when you continue.",
        });
      }
      const sent = JSON.stringify(messages);
      expect(sent).not.toContain(emptyModels);
      expect(sent).not.toContain("models fetch");
      await Bun.sleep(200);
      expect(bare.output()).toContain(emptyModels);
      expect(bare.output()).toContain("live transcription failed");
    } finally {
      await bare.stop();
      rmSync(emptyModels, { recursive: true, force: true });
      rmSync(otherData, { recursive: true, force: true });
    }
  }, 60_000);
});
