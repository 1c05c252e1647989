/**
 * @module model-store/install
 * `earshot models fetch`: puts each selected model's files into the models directory, from the
 * hub (`{hub}/{id}/resolve/{revision}/{path}`, or the file's own `from` repo, revision and name;
 * resumable) or from a local folder laid out like
 * the models directory (`--from DIR`, for air-gapped installs and CI). Every file is written to
 * `<models dir>/.staging/<model>/<file>.part`, checked (manifest sha256, else the size and sha256
 * recorded on an earlier fetch), and a model's files move into `<models dir>/<model>/` only once
 * all of them are complete and checked: a fetch that fails part-way leaves no half-installed
 * model folder behind (the server would take it for an installed, broken model), while its
 * `.part` files stay in the staging folder so the next run resumes them. Files whose hash nobody
 * knew yet are recorded in the lock file. Files already present and matching are left alone.
 */
import { mkdir, open, readdir, rename, rm, rmdir } from "node:fs/promises";
import path from "node:path";
import { downloadResumable, DownloadError, type ByteProgress } from "./download.ts";
import { chunksOf, expectationOf, filePath, lockKey, readLock, sha256OfFile, sizeOf, writeLock, type Expectation, type LockFile } from "./files.ts";
import type { ManifestFile, ManifestModel } from "./manifest.ts";

/** The public Hugging Face hub; `EARSHOT_MODELS_HUB_URL` replaces it (a mirror on the LAN). */
export const DEFAULT_HUB_URL = "https://huggingface.co";

/** Where files come from. */
export type InstallSource = { kind: "hub"; baseUrl: string } | { kind: "dir"; dir: string };

/** What happened to one file. */
export type InstalledFile = {
  model: string;
  path: string;
  /** "present": already there and matching; "absent-optional": an optional file the source lacks. */
  action: "downloaded" | "copied" | "present" | "absent-optional";
  size: number | null;
  sha256: string | null;
  /** What the bytes were checked against; "recorded-now" = nothing known before, recorded now. */
  checkedAgainst: "manifest" | "recorded" | "recorded-now" | null;
};

/** Receives progress; the CLI draws a bar from it. */
export type InstallReporter = {
  fileStarted?(model: string, file: string, total: number | null): void;
  fileProgress?(progress: ByteProgress): void;
  fileFinished?(result: InstalledFile): void;
  /** A transfer resumes from `offset` bytes (a `.part` from an earlier try). */
  resumed?(model: string, file: string, offset: number): void;
};

/** The bytes do not match what the manifest (or the first fetch) says. */
export class ModelFileMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelFileMismatchError";
  }
}

export type InstallOptions = {
  modelsDir: string;
  models: ManifestModel[];
  source: InstallSource;
  /** Also install files marked optional (e.g. full-precision weights). */
  allFiles?: boolean;
  /** Download retries per file (resuming each time). */
  retries?: number;
  retryDelayMs?: number;
  reporter?: InstallReporter;
};

/**
 * Installs the files of `models` into `modelsDir`.
 * @returns one entry per manifest file considered, in manifest order
 * @throws ModelFileMismatchError when fetched/copied bytes differ from the manifest's size or
 *   sha256 (the bad file is deleted); DownloadError for HTTP failures (a cut transfer keeps its
 *   `.part` for the next run); Error when a required file is missing from `--from DIR`.
 */
export async function installModels(opts: InstallOptions): Promise<InstalledFile[]> {
  const modelsDir = path.resolve(opts.modelsDir);
  const stagingDir = path.join(modelsDir, STAGING_DIR_NAME);
  const lock = await readLock(modelsDir);
  const results: InstalledFile[] = [];
  for (const model of opts.models) {
    const staged: { from: string; to: string }[] = [];
    const modelResults: InstalledFile[] = [];
    for (const file of model.files) {
      if (file.optional && !opts.allFiles) continue;
      const result = await installFile(opts, modelsDir, stagingDir, lock, model, file);
      if (result.action === "downloaded" || result.action === "copied") {
        staged.push({ from: filePath(stagingDir, model, file), to: filePath(modelsDir, model, file) });
      }
      modelResults.push(result);
      opts.reporter?.fileFinished?.(result);
    }
    // Every file of the model is complete and checked: only now does it appear in place.
    for (const { from, to } of staged) {
      await mkdir(path.dirname(to), { recursive: true });
      await rename(from, to);
    }
    await removeEmptyDirs(stagingDir);
    results.push(...modelResults);
  }
  return results;
}

/** Folder under the models directory where files wait until their whole model is fetched. */
export const STAGING_DIR_NAME = ".staging";

/** Removes `dir` and its sub-folders when they hold no file (a `.part` to resume keeps them). */
async function removeEmptyDirs(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
  if (!entries) return;
  for (const e of entries) if (e.isDirectory()) await removeEmptyDirs(path.join(dir, e.name));
  await rmdir(dir).catch(() => undefined); // fails while anything is left: that is the point
}

async function installFile(
  opts: InstallOptions,
  modelsDir: string,
  stagingDir: string,
  lock: LockFile,
  model: ManifestModel,
  file: ManifestFile,
): Promise<InstalledFile> {
  const dest = filePath(modelsDir, model, file);
  const staged = filePath(stagingDir, model, file);
  const base = { model: model.id, path: file.path };
  const expected = expectationOf(lock, model, file);
  const present = await checkPresent(dest, expected);
  if (present === "match") return { ...base, action: "present", size: expected!.size, sha256: expected!.sha256, checkedAgainst: expected!.from };
  if (present === "unknown") {
    const size = (await sizeOf(dest))!;
    const sha256 = await sha256OfFile(dest);
    await record(modelsDir, lock, model, file, { size, sha256, source: `existing file ${dest}` });
    return { ...base, action: "present", size, sha256, checkedAgainst: "recorded-now" };
  }
  if (present === "mismatch") await rm(dest, { force: true });

  await mkdir(path.dirname(staged), { recursive: true });
  const part = `${staged}.part`;
  let got: { size: number; sha256: string } | null;
  let sourceName: string;
  if (opts.source.kind === "hub") {
    const from = file.from ?? { repo: model.id, revision: model.revision, path: file.path };
    sourceName = `${opts.source.baseUrl.replace(/\/+$/, "")}/${from.repo}/resolve/${from.revision}/${from.path}`;
    got = await downloadFile(opts, sourceName, part, model, file);
  } else {
    sourceName = path.join(path.resolve(opts.source.dir), ...model.id.split("/"), ...file.path.split("/"));
    got = await copyFile(opts, sourceName, part, model, file);
  }
  if (got === null) return { ...base, action: "absent-optional", size: null, sha256: null, checkedAgainst: null };

  // Only the manifest's pin rejects bytes; a hash recorded on an earlier fetch is replaced,
  // because the upstream may publish a new revision of an unpinned file.
  const pinned = file.sha256 !== null ? expected : null;
  const problem = pinned ? mismatch(got, pinned) : null;
  if (problem) {
    await rm(part, { force: true });
    throw new ModelFileMismatchError(`${model.id}/${file.path} from ${sourceName}: ${problem}; the file was discarded`);
  }
  await rename(part, staged);
  if (file.sha256 === null) await record(modelsDir, lock, model, file, { ...got, source: sourceName });
  return {
    ...base,
    action: opts.source.kind === "hub" ? "downloaded" : "copied",
    ...got,
    checkedAgainst: file.sha256 !== null ? "manifest" : "recorded-now",
  };
}

/** "absent", "match", "mismatch" (against a known reference) or "unknown" (present, nothing to compare). */
async function checkPresent(dest: string, expected: Expectation | null): Promise<"absent" | "match" | "mismatch" | "unknown"> {
  const size = await sizeOf(dest);
  if (size === null) return "absent";
  if (expected === null) return "unknown";
  if (expected.size !== null && expected.size !== size) return "mismatch";
  return (await sha256OfFile(dest)) === expected.sha256 ? "match" : "mismatch";
}

/** Why `got` does not match `expected`, or null. */
export function mismatch(got: { size: number; sha256: string }, expected: { size: number | null; sha256: string }): string | null {
  if (expected.size !== null && got.size !== expected.size) return `size is ${got.size} bytes, expected ${expected.size}`;
  if (got.sha256 !== expected.sha256) return `sha256 is ${got.sha256}, expected ${expected.sha256}`;
  return null;
}

async function record(
  modelsDir: string,
  lock: LockFile,
  model: ManifestModel,
  file: ManifestFile,
  seen: { size: number; sha256: string; source: string },
): Promise<void> {
  lock.files[lockKey(model, file)] = { ...seen, recorded_at: new Date().toISOString() };
  await writeLock(modelsDir, lock);
}

async function downloadFile(
  opts: InstallOptions,
  url: string,
  part: string,
  model: ManifestModel,
  file: ManifestFile,
): Promise<{ size: number; sha256: string } | null> {
  let started = false;
  try {
    return await downloadResumable(url, part, {
      retries: opts.retries,
      retryDelayMs: opts.retryDelayMs,
      onAttempt: (offset) => {
        if (offset > 0) opts.reporter?.resumed?.(model.id, file.path, offset);
      },
      onProgress: (p) => {
        if (!started) opts.reporter?.fileStarted?.(model.id, file.path, p.total);
        started = true;
        opts.reporter?.fileProgress?.(p);
      },
    });
  } catch (err) {
    if (file.optional && err instanceof DownloadError && err.status === 404) return null;
    throw err;
  }
}

async function copyFile(
  opts: InstallOptions,
  source: string,
  part: string,
  model: ManifestModel,
  file: ManifestFile,
): Promise<{ size: number; sha256: string } | null> {
  const total = await sizeOf(source);
  if (total === null) {
    if (file.optional) return null;
    throw new Error(`${model.id}/${file.path} is not in the source folder (looked for ${source})`);
  }
  opts.reporter?.fileStarted?.(model.id, file.path, total);
  const hasher = new Bun.CryptoHasher("sha256");
  const handle = await open(part, "w");
  let received = 0;
  try {
    for await (const chunk of chunksOf(Bun.file(source).stream())) {
      await handle.write(chunk);
      hasher.update(chunk);
      received += chunk.byteLength;
      opts.reporter?.fileProgress?.({ received, total });
    }
  } finally {
    await handle.close();
  }
  return { size: received, sha256: hasher.digest("hex") };
}
