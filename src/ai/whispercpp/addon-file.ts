/**
 * @module ai/whispercpp/addon-file
 * Opens one built variant of the whisper.cpp addon by its file name (variants.ts). From source
 * the files are those scripts/build-whisper.ts writes to native/whisper/out/. In the compiled
 * binary this module is replaced at build time (runtime/build-plugins.ts `whisperAddonPlugin`)
 * by one that `require`s each variant by a literal path, which makes Bun embed the files and
 * extract the chosen one when it is opened.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const OUT_DIR = path.resolve(import.meta.dir, "../../../native/whisper/out");
const requireHere = createRequire(import.meta.url);

/**
 * The addon module of variant file `file` (e.g. `linux-x64-avx2.node`).
 * @throws Error when the file was not built, or when it cannot be opened on this system
 */
export function requireAddonFile(file: string): unknown {
  const full = path.join(OUT_DIR, file);
  if (!fs.existsSync(full)) throw new Error(`the whisper.cpp addon ${file} is not built (run: bun scripts/build-whisper.ts)`);
  return requireHere(full);
}
