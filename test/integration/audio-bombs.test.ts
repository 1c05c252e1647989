/**
 * Issue 22 item 1: audio decompression bombs, measured where they would hurt. Each hostile file
 * (built here byte by byte, or from opusenc's output with its timestamps rewritten) is checked and
 * decoded in a child process of its own (test/helpers/decode-child.ts), whose peak resident memory
 * (VmHWM) must stay under PEAK_RSS_BOUND_MB; a watcher kills a child past KILL_RSS_MB, so a
 * regression fails the test instead of exhausting the machine (the two-fmt bomb reached 3.66 GB).
 * Then the reported file goes through a real `earshot serve` over HTTP, and a recording whose
 * container lies is refused by the worker's decoder, on the suite's engine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { alaw, mulaw } from "alawmulaw";
import { fmtBody, oggOpusOf, oggSqueezed, remuxOpus, riffWav, toneWav } from "../helpers/audio-fixtures.ts";
import { REPO_DIR, runCli, startServer, type RunningServer } from "../helpers/process.ts";

/** Peak RSS any child may reach: a legitimate 300 s WAV decodes in ~160 MB, 600 s in ~220 MB, a bare child ~50 MB. */
const PEAK_RSS_BOUND_MB = 300;
/** A child past this is killed (before the fix, the two-fmt bomb grew to gigabytes). */
const KILL_RSS_MB = 1_000;

const dir = mkdtempSync(path.join(tmpdir(), "earshot-audio-bombs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MULAW = 7;
const ALAW = 6;
const IMA_ADPCM = 0x11;
const fmt = (tag: number, rateHz: number) =>
  tag === IMA_ADPCM ? fmtBody({ tag, rateHz, bits: 4, blockAlign: 256, extra: new Uint8Array([0xf9, 0x01]) }) : fmtBody({ tag, rateHz, bits: 8 });
/** `seconds` of a 440 Hz tone, G.711-coded at 8 kHz. */
const g711 = (codec: typeof alaw, seconds: number) =>
  codec.encode(Int16Array.from({ length: seconds * 8_000 }, (_, i) => Math.round(12_000 * Math.sin((2 * Math.PI * 440 * i) / 8_000))));
/** `seconds` of IMA ADPCM at 8 kHz: 256-byte blocks of 505 frames (valid headers, quiet data). */
const adpcm = (seconds: number) => new Uint8Array(Math.ceil((seconds * 8_000) / 505) * 256).map((_, i) => (i % 256 < 4 ? 0 : 0x11));

type ChildResult = { check: string; decode: string; peakRssMb: number };

/** Runs the check and the decoder on `bytes` in a child process, killing it past KILL_RSS_MB. */
async function inChild(name: string, bytes: Uint8Array, limitS: number): Promise<ChildResult> {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  const child = Bun.spawn([process.execPath, path.join(REPO_DIR, "test/helpers/decode-child.ts"), file, String(limitS)], { stdout: "pipe", stderr: "pipe" });
  let killedAtMb = 0;
  const watcher = setInterval(() => {
    try {
      const rssKb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]);
      if (rssKb / 1024 > KILL_RSS_MB) {
        killedAtMb = Math.round(rssKb / 1024);
        child.kill("SIGKILL");
      }
    } catch {
      // the child has exited
    }
  }, 20);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearInterval(watcher);
  if (killedAtMb > 0) return { check: "killed", decode: "killed", peakRssMb: killedAtMb };
  if (!stdout.trim()) throw new Error(`decode child for ${name} printed nothing: ${stderr}`);
  return JSON.parse(stdout) as ChildResult;
}

describe("hostile recordings decode in bounded memory (child process per file)", () => {
  // The reported bomb: 4.8 MB that is 600 s at 8 000 Hz to one reading and 48 000 s at 100 Hz to another.
  const data = g711(mulaw, 600);

  test("two fmt chunks (µ-law, A-law, ADPCM; both orders) are refused by the check and the decoder", async () => {
    const cases: Array<[string, Array<[string, Uint8Array]>]> = [
      [
        "mulaw-100-then-8k.wav",
        [
          ["fmt ", fmt(MULAW, 100)],
          ["fmt ", fmt(MULAW, 8_000)],
          ["data", data],
        ],
      ],
      [
        "mulaw-8k-then-100.wav",
        [
          ["fmt ", fmt(MULAW, 8_000)],
          ["fmt ", fmt(MULAW, 100)],
          ["data", data],
        ],
      ],
      [
        "alaw-100-then-8k.wav",
        [
          ["fmt ", fmt(ALAW, 100)],
          ["fmt ", fmt(ALAW, 8_000)],
          ["data", g711(alaw, 600)],
        ],
      ],
      [
        "mulaw-100-then-adpcm-8k.wav",
        [
          ["fmt ", fmt(MULAW, 100)],
          ["fmt ", fmt(IMA_ADPCM, 8_000)],
          ["data", adpcm(600)],
        ],
      ],
    ];
    for (const [name, chunks] of cases) {
      const r = await inChild(name, riffWav(chunks), 602);
      expect({ name, ...r, peakRssMb: 0 }).toEqual({
        name,
        check: "AudioDecodeError: the WAV file has two fmt chunks; a recording has one",
        decode: "AudioDecodeError: the WAV file has two fmt chunks; a recording has one",
        peakRssMb: 0,
      });
      expect(r.peakRssMb).toBeLessThan(PEAK_RSS_BOUND_MB);
    }
  }, 120_000);

  test("fmt after data is refused; odd chunk sizes, µ-law and ADPCM of legitimate length decode", async () => {
    const after = await inChild(
      "fmt-after-data.wav",
      riffWav([
        ["fmt ", fmt(MULAW, 8_000)],
        ["data", data],
        ["fmt ", fmt(MULAW, 100)],
      ]),
      602,
    );
    expect([after.check, after.decode]).toEqual(Array(2).fill("AudioDecodeError: the WAV file's fmt chunk comes after its data chunk"));
    expect(after.peakRssMb).toBeLessThan(PEAK_RSS_BOUND_MB);

    const odd = riffWav([
      ["junk", new Uint8Array(3)],
      ["fmt ", fmt(MULAW, 8_000)],
      ["data", data.subarray(0, 180 * 8_000 + 1)],
      ["LIST", new Uint8Array(5)],
    ]);
    const oddResult = await inChild("odd-sizes.wav", odd, 602);
    expect([oddResult.check, oddResult.decode]).toEqual(["ok", "ok 180.0"]);
    expect(oddResult.peakRssMb).toBeLessThan(PEAK_RSS_BOUND_MB);

    const ima = await inChild(
      "adpcm-180s.wav",
      riffWav([
        ["fmt ", fmt(IMA_ADPCM, 8_000)],
        ["data", adpcm(180)],
      ]),
      602,
    );
    expect([ima.check, ima.decode]).toEqual(["ok", "ok 180.0"]);
    expect(ima.peakRssMb).toBeLessThan(PEAK_RSS_BOUND_MB);

    const tooLong = await inChild(
      "alaw-600s-on-10s.wav",
      riffWav([
        ["fmt ", fmt(ALAW, 8_000)],
        ["data", g711(alaw, 600)],
      ]),
      12,
    );
    expect([tooLong.check, tooLong.decode]).toEqual(Array(2).fill("AudioTooLongError: the recording is longer than the 12 s accepted (at least 600.0 s)"));
  }, 120_000);

  test("WebM and Ogg whose timestamps claim a fraction of their 60 s pass the check and are stopped by the decoder", async () => {
    const ogg = await oggOpusOf(dir, toneWav({ seconds: 60, rateHz: 16_000 }));
    for (const [name, bytes] of [
      ["squeezed.webm", await remuxOpus(ogg, "webm", { squeeze: true })],
      ["squeezed.ogg", oggSqueezed(ogg)],
    ] as const) {
      const r = await inChild(name, bytes, 12);
      expect({ name, check: r.check }).toEqual({ name, check: "ok" }); // the container claims < 1 s
      expect(r.decode).toStartWith("AudioTooLongError: the recording is longer than the 12 s accepted");
      // Stopped within one batch of packets past the limit, not after decoding all 60 s.
      const decodedS = Number(/at least ([\d.]+) s/.exec(r.decode)?.[1]);
      expect(decodedS).toBeGreaterThanOrEqual(12); // a packet stamped past 12 s, or 12.25 s decoded
      expect(decodedS).toBeLessThan(40);
      expect(r.peakRssMb).toBeLessThan(PEAK_RSS_BOUND_MB);
    }
  }, 120_000);
});

describe("over HTTP, on a real server (the suite's engine)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-audio-bombs-server-"));
  let server: RunningServer;
  let ws: { workspace_slug: string; api_key: string };
  beforeAll(async () => {
    const cli = await runCli(["workspace", "create", "--name", "Bombs", "--slug", "bombs", "--json"], { dataDir });
    expect(cli.code).toBe(0);
    ws = JSON.parse(cli.stdout);
    server = await startServer({ dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, urlPath: string, body?: unknown, raw?: { bytes: Uint8Array; type: string }) {
    const res = await fetch(server.baseUrl + urlPath, {
      method,
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": raw?.type ?? "application/json" },
      body: raw ? (raw.bytes as unknown as BodyInit) : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get("content-type"), json: (await res.json()) as any };
  }

  test("the reported 80 KB two-fmt WAV is refused at upload (both orders); a lying Ogg is refused by the worker's decoder", async () => {
    const link = (await call("POST", "/api/v1/links/", { name: "Voice", questions: [{ prompt: "Speak", type: "voice", configuration: { max_duration: 10 } }] }))
      .json;
    const base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
    const session = (await call("POST", base, {})).json.session_id as string;
    const upload = (bytes: Uint8Array, type = "audio/wav") =>
      call("POST", `${base}${session}/answers/${link.questions[0].uuid}/audio/`, undefined, { bytes, type });

    const tenSeconds = g711(mulaw, 10); // 80 KB: 10 s at 8 000 Hz, 800 s at 100 Hz
    for (const chunks of [
      [
        ["fmt ", fmt(MULAW, 100)],
        ["fmt ", fmt(MULAW, 8_000)],
        ["data", tenSeconds],
      ],
      [
        ["fmt ", fmt(MULAW, 8_000)],
        ["fmt ", fmt(MULAW, 100)],
        ["data", tenSeconds],
      ],
    ] as Array<Array<[string, Uint8Array]>>) {
      const r = await upload(riffWav(chunks));
      expect([r.status, r.json.code, r.type]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE", "application/problem+json"]);
      expect(r.json.detail).toContain("two fmt chunks");
    }

    // 60 s of Opus whose granule positions claim 5 ms: stored, then stopped by the decoder at 12 s.
    const ogg = oggSqueezed(await oggOpusOf(dataDir, toneWav({ seconds: 60, rateHz: 16_000 })));
    expect((await upload(ogg, "audio/ogg")).status).toBe(200);
    const submitted = await call("POST", `${base}${session}/submit/`, {});
    expect(submitted.status).toBe(200);
    const responses = `/api/v1/links/${link.uuid}/responses/`;
    let answer: any = null;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await Bun.sleep(200)) {
      answer = (await call("GET", responses)).json.results?.[0]?.answers?.[0];
      if (answer?.transcription_status === "failed" || answer?.transcription_status === "completed") break;
    }
    expect(answer).toMatchObject({ transcription_status: "failed", duration: null });
    expect(answer.transcription_error).toContain("longer than the 12 s accepted");
    const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.proc.pid}/status`, "utf8"))?.[1]);
    expect(peakKb / 1024).toBeLessThan(400); // the whole server, worker and Whisper fixture included (measured 132 MB)
  }, 120_000);
});
