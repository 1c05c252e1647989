/**
 * @module model-store/files
 * Where model files live on disk and what is known about them: paths under the models
 * directory, streaming sha256, and the lock file that records the size and sha256 of files
 * whose hash the manifest cannot give (`verify: "size-and-sha256-recorded-on-first-fetch"`).
 */
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ManifestFile, ManifestModel } from "./manifest.ts";

/** The lock file, in the models directory. */
export const LOCK_FILE_NAME = ".earshot-models.lock.json";

/** What was observed about one file when it was fetched or copied. */
export type RecordedFile = { size: number; sha256: string; source: string; recorded_at: string };

/** `{ "<model id>/<file path>": RecordedFile }`. */
export type LockFile = { version: 1; files: Record<string, RecordedFile> };

/** Key of a file in the lock file: `<model id>/<file path>`. */
export const lockKey = (model: ManifestModel, file: ManifestFile): string => `${model.id}/${file.path}`;

/** Absolute path of a model file: `<modelsDir>/<model id>/<file path>`. */
export const filePath = (modelsDir: string, model: ManifestModel, file: ManifestFile): string =>
  path.join(path.resolve(modelsDir), ...model.id.split("/"), ...file.path.split("/"));

/** Size in bytes, or null when the file does not exist. */
export async function sizeOf(file: string): Promise<number | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

/** The chunks of a byte stream (the DOM typings in tsconfig lack its async iterator). */
export async function* chunksOf(stream: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (stream === null) return;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Lower-case hex sha256 of a file, read as a stream (memory stays flat for GB files). */
export async function sha256OfFile(file: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of chunksOf(Bun.file(file).stream())) hasher.update(chunk);
  return hasher.digest("hex");
}

/** Reads the lock file; a missing or unreadable one counts as empty. */
export async function readLock(modelsDir: string): Promise<LockFile> {
  try {
    const json = JSON.parse(await readFile(path.join(modelsDir, LOCK_FILE_NAME), "utf8")) as Partial<LockFile>;
    if (json.version === 1 && typeof json.files === "object" && json.files !== null) return { version: 1, files: json.files };
  } catch {
    // absent or damaged: nothing recorded yet
  }
  return { version: 1, files: {} };
}

/** Writes the lock file atomically (temporary file + rename). */
export async function writeLock(modelsDir: string, lock: LockFile): Promise<void> {
  await mkdir(modelsDir, { recursive: true });
  const target = path.join(modelsDir, LOCK_FILE_NAME);
  const temp = `${target}.${process.pid}.tmp`;
  const sorted = Object.fromEntries(Object.entries(lock.files).sort(([a], [b]) => a.localeCompare(b)));
  await writeFile(temp, JSON.stringify({ version: 1, files: sorted }, null, 2) + "\n");
  await rename(temp, target);
}

/** What a file must match: the manifest's pin, else what was recorded; null when neither exists. */
export type Expectation = { size: number | null; sha256: string; from: "manifest" | "recorded" };

/** The reference a file is checked against (manifest first, then the lock file). */
export function expectationOf(lock: LockFile, model: ManifestModel, file: ManifestFile): Expectation | null {
  if (file.sha256 !== null) return { size: file.size, sha256: file.sha256, from: "manifest" };
  const recorded = lock.files[lockKey(model, file)];
  return recorded ? { size: recorded.size, sha256: recorded.sha256, from: "recorded" } : null;
}
