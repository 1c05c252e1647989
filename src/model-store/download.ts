/**
 * @module model-store/download
 * One file over HTTP into `<dest>.part`, resumable: an existing `.part` is continued with
 * `Range: bytes=<size>-` (RFC 9110 §14.2), a `206` is appended to it, a `200` starts over. A
 * transfer cut short is resumed up to `retries` times in the same run; a later run continues the
 * `.part` it left. The sha256 covers the whole file, including the part already on disk.
 */
import { open, rm, truncate } from "node:fs/promises";
import { chunksOf, sizeOf } from "./files.ts";

/** Progress of one transfer: bytes on disk so far and the total (null when the server gives none). */
export type ByteProgress = { received: number; total: number | null };

/** A download that cannot succeed by retrying (e.g. 404), or that ran out of retries. */
export class DownloadError extends Error {
  readonly status: number | null;

  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = "DownloadError";
    this.status = status;
  }
}

export type DownloadOptions = {
  /** Extra attempts after a cut transfer or a 5xx, each resuming where the last one stopped. */
  retries?: number;
  /** Pause between attempts, ms (doubled each time). */
  retryDelayMs?: number;
  onProgress?: (progress: ByteProgress) => void;
  /** Called at the start of each attempt with the byte offset it resumes from (0 = from scratch). */
  onAttempt?: (offset: number) => void;
  fetchImpl?: typeof fetch;
};

const DEFAULT_RETRIES = 3;
const DEFAULT_RETRY_DELAY_MS = 500;

/** `Content-Range: bytes <start>-<end>/<total|*>` → start and total. */
function parseContentRange(value: string | null): { start: number; total: number | null } | null {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(value?.trim() ?? "");
  if (!m) return null;
  return { start: Number(m[1]), total: m[2] === "*" ? null : Number(m[2]) };
}

/** Feeds the bytes already in `file` to the hasher. */
async function hashExisting(file: string, hasher: Bun.CryptoHasher): Promise<void> {
  for await (const chunk of chunksOf(Bun.file(file).stream())) hasher.update(chunk);
}

/**
 * Downloads `url` into `partPath`, resuming what is already there.
 * @returns the file's size (bytes) and lower-case hex sha256; `partPath` then holds the whole file
 *   (the caller checks it and renames it into place).
 * @throws DownloadError on 4xx other than 416 (no retry; a 416 restarts from scratch) or when every retry
 *   was cut short; the `.part` is kept so a later run resumes it.
 */
export async function downloadResumable(url: string, partPath: string, opts: DownloadOptions = {}): Promise<{ size: number; sha256: string }> {
  const retries = opts.retries ?? DEFAULT_RETRIES;
  const doFetch = opts.fetchImpl ?? fetch;
  let delayMs = opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  let lastProblem = "";
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      await Bun.sleep(delayMs);
      delayMs *= 2;
    }
    const offset = (await sizeOf(partPath)) ?? 0;
    opts.onAttempt?.(offset);
    let res: Response;
    try {
      res = await doFetch(url, { headers: offset > 0 ? { range: `bytes=${offset}-` } : {}, redirect: "follow" });
    } catch (err) {
      lastProblem = `request failed: ${(err as Error).message}`;
      continue;
    }
    if (res.status === 416 && offset > 0) {
      await res.body?.cancel();
      // `Content-Range: bytes */<size>`: the .part may already be the whole file.
      const size = /^bytes \*\/(\d+)$/.exec(res.headers.get("content-range")?.trim() ?? "");
      if (size && Number(size[1]) === offset) {
        const hasher = new Bun.CryptoHasher("sha256");
        await hashExisting(partPath, hasher);
        return { size: offset, sha256: hasher.digest("hex") };
      }
      await rm(partPath, { force: true }); // not a prefix the server can continue: start over
      lastProblem = "the server could not resume (416)";
      continue;
    }
    if (res.status >= 400 && res.status < 500) {
      await res.body?.cancel();
      throw new DownloadError(`GET ${url} answered ${res.status} ${res.statusText}`.trim(), res.status);
    }
    if (res.status !== 200 && res.status !== 206) {
      await res.body?.cancel();
      lastProblem = `the server answered ${res.status}`;
      continue;
    }
    const range = res.status === 206 ? parseContentRange(res.headers.get("content-range")) : null;
    const isAppend = res.status === 206 && range !== null && range.start === offset;
    if (res.status === 206 && !isAppend) {
      await res.body?.cancel();
      await rm(partPath, { force: true });
      lastProblem = "the server resumed from another offset";
      continue;
    }
    const length = Number(res.headers.get("content-length") ?? NaN);
    const total = isAppend ? (range?.total ?? (Number.isFinite(length) ? offset + length : null)) : Number.isFinite(length) ? length : null;
    const hasher = new Bun.CryptoHasher("sha256");
    if (isAppend) await hashExisting(partPath, hasher);
    else await truncate(partPath).catch(() => undefined);
    let received = isAppend ? offset : 0;
    const handle = await open(partPath, isAppend ? "a" : "w");
    try {
      opts.onProgress?.({ received, total });
      for await (const chunk of chunksOf(res.body)) {
        await handle.write(chunk);
        hasher.update(chunk);
        received += chunk.byteLength;
        opts.onProgress?.({ received, total });
      }
    } catch (err) {
      lastProblem = `the transfer was cut at ${received} bytes (${(err as Error).message})`;
      continue;
    } finally {
      await handle.close();
    }
    if (total !== null && received !== total) {
      lastProblem = `the transfer ended at ${received} of ${total} bytes`;
      continue;
    }
    return { size: received, sha256: hasher.digest("hex") };
  }
  const kept = (await sizeOf(partPath)) ?? 0;
  const hint = kept > 0 ? `; run the command again to resume from the ${kept} bytes kept in ${partPath}` : "";
  throw new DownloadError(`GET ${url}: ${lastProblem}${hint}`);
}
