/**
 * @module runtime/embedded
 * Files that scripts/build.ts embeds in the compiled binary besides code.
 *
 * Web assets: the build bundles `web/` (http/web-assets.ts `buildWebAssets`) into `dist/web/`
 * and embeds that folder with `compile.assets` (`--asset`). Bun keeps the folder's base name,
 * so inside the binary the files live under `/$bunfs/root/web/` and read like ordinary files
 * (`node:fs`, `Bun.file`). From source there is nothing embedded and web/ is bundled instead.
 */
import fs from "node:fs";
import path from "node:path";
import type { WebAsset, WebAssets } from "../http/web-assets.ts";

/** Where `bun build --compile` puts embedded files and `--asset` folders (Linux, macOS). */
const STANDALONE_ROOT = "/$bunfs/root";

/** Base name of the embedded web folder: scripts/build.ts embeds `dist/web`. */
export const EMBEDDED_WEB_DIR = "web";

function listFiles(dir: string, prefix = ""): [string, string][] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const file = path.join(dir, entry.name);
    const name = prefix + entry.name;
    return entry.isDirectory() ? listFiles(file, `${name}/`) : [[name, file]];
  });
}

/**
 * The web assets embedded in the binary, keyed by URL path (`/assets/intake.js`,
 * `/assets/intake.css`, …) with their bytes and `Content-Type` (from the file extension, e.g.
 * `text/javascript;charset=utf-8`).
 * @param urlPrefix path the files are served under
 * @returns null when not running as the compiled binary (from source: bundle web/ instead)
 */
export async function readEmbeddedWebAssets(urlPrefix = "/assets/"): Promise<WebAssets | null> {
  if (!Bun.isStandaloneExecutable) return null;
  const files = listFiles(path.join(STANDALONE_ROOT, EMBEDDED_WEB_DIR));
  const assets = await Promise.all(
    files.map(async ([name, file]): Promise<[string, WebAsset]> => {
      const blob = Bun.file(file);
      return [`${urlPrefix}${name}`, { body: await blob.bytes(), contentType: blob.type }];
    }),
  );
  return new Map(assets);
}
