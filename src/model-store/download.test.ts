import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { downloadResumable, DownloadError } from "./download.ts";
import { FIXTURE_MODELS_DIR, startTestHub } from "../../test/helpers/model-hub.ts";

const TOKENIZER = "whisper-tiny-random/tokenizer.json";
const TOKENIZER_SHA256 = "c6ee8f089220a5b1188f6426456772572671c6141ae007eecb83c6a8349f5deb";
const TOKENIZER_BYTES = 2128494;

const hub = await startTestHub();
const dir = mkdtempSync(path.join(tmpdir(), "earshot-download-"));
afterAll(() => {
  hub.stop();
  rmSync(dir, { recursive: true, force: true });
});

const urlOf = (file: string) => `${hub.url}/${file.replace("/", "/resolve/main/")}`;
const partPath = (name: string) => path.join(dir, `${name}.part`);

describe("downloadResumable", () => {
  test("a cut transfer is resumed with Range in the same run; the hash covers the whole file", async () => {
    hub.cutNextTransfer(TOKENIZER, 700_000);
    const offsets: number[] = [];
    const before = hub.requests.length;
    const got = await downloadResumable(urlOf(TOKENIZER), partPath("cut"), { retryDelayMs: 10, onAttempt: (o) => offsets.push(o) });
    expect(got).toEqual({ size: TOKENIZER_BYTES, sha256: TOKENIZER_SHA256 });
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBeGreaterThan(0); // resumed, not restarted
    const seen = hub.requests.slice(before);
    expect(seen.map((r) => r.status)).toEqual([200, 206]);
    expect(seen[1]!.range).toBe(`bytes=${offsets[1]}-`);
    expect(readFileSync(partPath("cut")).equals(readFileSync(path.join(FIXTURE_MODELS_DIR, TOKENIZER)))).toBe(true);
  });

  test("a .part left by an earlier run is continued", async () => {
    const original = readFileSync(path.join(FIXTURE_MODELS_DIR, TOKENIZER));
    writeFileSync(partPath("left"), original.subarray(0, 1000));
    const before = hub.requests.length;
    expect(await downloadResumable(urlOf(TOKENIZER), partPath("left"))).toEqual({ size: TOKENIZER_BYTES, sha256: TOKENIZER_SHA256 });
    expect(hub.requests.slice(before)).toEqual([{ path: expect.any(String), range: "bytes=1000-", status: 206 }]);
  });

  test("a complete .part answered 416 is taken as it is", async () => {
    writeFileSync(partPath("whole"), readFileSync(path.join(FIXTURE_MODELS_DIR, TOKENIZER)));
    expect(await downloadResumable(urlOf(TOKENIZER), partPath("whole"))).toEqual({ size: TOKENIZER_BYTES, sha256: TOKENIZER_SHA256 });
    expect(hub.requests.at(-1)!.status).toBe(416);
  });

  test("a server that ignores Range makes it start over, not append", async () => {
    hub.ignoreRanges(true);
    try {
      writeFileSync(partPath("norange"), new Uint8Array(5000).fill(7));
      expect(await downloadResumable(urlOf(TOKENIZER), partPath("norange"))).toEqual({ size: TOKENIZER_BYTES, sha256: TOKENIZER_SHA256 });
    } finally {
      hub.ignoreRanges(false);
    }
  });

  test("404 fails at once with its status", async () => {
    const err = await downloadResumable(urlOf("whisper-tiny-random/absent.json"), partPath("absent")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as DownloadError).status).toBe(404);
  });

  test("when every retry is cut, the .part is kept for the next run", async () => {
    hub.cutNextTransfer(TOKENIZER, 300_000);
    const err = await downloadResumable(urlOf(TOKENIZER), partPath("gaveup"), { retries: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as Error).message).toContain("run the command again to resume");
    expect(readFileSync(partPath("gaveup")).length).toBeGreaterThan(0);
  });
});
