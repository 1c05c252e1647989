/**
 * @module test/helpers/model-hub
 * For tests: a local HTTP server in the hub's URL layout (`/{model id}/resolve/{revision}/{path}`)
 * serving files from a folder, with `Range` support (206 + Content-Range, 416), a request log,
 * and switches to cut a transfer short or serve altered bytes — so fetch, resume and
 * verification are tested against real HTTP. Also the test manifest of the staged fixtures.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Manifest } from "../../src/model-store/manifest.ts";

/** The staged fixture models (shared/models/fixture). */
import { FIXTURE_MODELS_DIR } from "./fixtures.ts";

export { FIXTURE_MODELS_DIR };

/** The hub commit the fixture manifest pins its Whisper fixture to, as the real manifest pins real models. */
export const FIXTURE_REVISION = "0123456789abcdef0123456789abcdef01234567";

/** One request the hub saw. */
export type HubRequest = { path: string; range: string | null; status: number };

export type TestHub = {
  url: string;
  requests: HubRequest[];
  /** The next full GET of `filePath` (e.g. "whisper-tiny-random/tokenizer.json") sends `bytes` bytes, then drops the connection. */
  cutNextTransfer(filePath: string, bytes: number): void;
  /** Serve `filePath` with its first byte flipped, from now on. */
  corrupt(filePath: string): void;
  /** Ignore Range headers (answer 200 with the whole file), as some mirrors do. */
  ignoreRanges(on: boolean): void;
  stop(): void;
};

/**
 * Starts the hub on a free loopback port, serving `<root>/<model id>/<path>` at
 * `/<model id>/resolve/<revision>/<path>` for any revision (the request log shows which); `.onnx`
 * files, like the hub's LFS files, answer 302 to `/lfs/<model id>/-/<path>`, which serves them.
 * node:http, not Bun.serve, so that a cut transfer can announce the full Content-Length and
 * then drop the socket, as a failing network does.
 */
export async function startTestHub(root: string = FIXTURE_MODELS_DIR): Promise<TestHub> {
  const requests: HubRequest[] = [];
  const cuts = new Map<string, number>();
  const corrupted = new Set<string>();
  let isIgnoringRanges = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://hub");
    const pathname = decodeURIComponent(url.pathname);
    const m = /^\/(.+?)\/resolve\/[A-Za-z0-9._-]+\/(.+)$/.exec(pathname) ?? /^\/lfs\/(.+?)\/-\/(.+)$/.exec(pathname);
    const rangeHeader = req.headers.range ?? null;
    const answer = (status: number, headers: Record<string, string | number>, body?: Uint8Array) => {
      requests.push({ path: url.pathname, range: rangeHeader, status });
      res.writeHead(status, headers);
      res.end(body);
    };
    if (!m || m[1]!.split("/").includes("..") || m[2]!.split("/").includes("..")) return answer(404, {}, Buffer.from("not found"));
    // Like the real hub, large (LFS) files are answered with a redirect to their storage.
    if (pathname.includes("/resolve/") && m[2]!.endsWith(".onnx")) return answer(302, { location: `/lfs/${m[1]}/-/${m[2]}` });
    const key = `${m[1]}/${m[2]}`;
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(path.join(root, key)));
    } catch {
      return answer(404, {}, Buffer.from("Entry not found"));
    }
    if (corrupted.has(key)) {
      bytes = bytes.slice();
      bytes[0] = bytes[0]! ^ 0xff;
    }
    const range = isIgnoringRanges ? null : /^bytes=(\d+)-$/.exec(rangeHeader ?? "");
    if (range) {
      const start = Number(range[1]);
      if (start >= bytes.length) return answer(416, { "content-range": `bytes */${bytes.length}` });
      return answer(
        206,
        { "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}`, "content-length": bytes.length - start },
        bytes.subarray(start),
      );
    }
    const cutAt = cuts.get(key);
    if (cutAt !== undefined) {
      cuts.delete(key);
      requests.push({ path: url.pathname, range: rangeHeader, status: 200 });
      res.writeHead(200, { "content-length": bytes.length, "accept-ranges": "bytes" });
      res.write(bytes.subarray(0, cutAt), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    return answer(200, { "content-length": bytes.length, "accept-ranges": "bytes" }, bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutNextTransfer: (filePath, bytes) => cuts.set(filePath, bytes),
    corrupt: (filePath) => corrupted.add(filePath),
    ignoreRanges: (on) => {
      isIgnoringRanges = on;
    },
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * A manifest of the staged fixtures, with the sizes and sha256s of shared/models/MANIFEST.md.
 * `special_tokens_map.json` is left unpinned on purpose, to exercise "recorded on first fetch".
 */
export function fixtureManifest(): Manifest {
  const pinned = (p: string, size: number, sha256: string, optional = false) => ({ path: p, size, sha256, verify: "sha256" as const, optional });
  return {
    schema_version: 1,
    models: [
      {
        id: "whisper-tiny-random",
        task: "automatic-speech-recognition",
        default: true,
        description: "ASR test fixture (random weights)",
        source: "https://example.invalid/whisper-tiny-random",
        revision: FIXTURE_REVISION,
        license: null,
        files: [
          pinned("config.json", 2212, "d4ea037bb1627dcd9a2934873aca3c6ea9ca8311f59e6e9f743314b0b19378c3"),
          pinned("generation_config.json", 1369, "dbe457ed204795f44afda84e4171a4061fb5a96879c00a31b9e34d97b6f0a9df"),
          pinned("preprocessor_config.json", 339, "a6a76d28c93edb273669eb9e0b0636a2bddbb1272c3261e47b7ca6dfdbac1b8d"),
          pinned("tokenizer.json", 2128494, "c6ee8f089220a5b1188f6426456772572671c6141ae007eecb83c6a8349f5deb"),
          pinned("tokenizer_config.json", 835, "e082c1ad251541bf277967a703252cddd4bb37a71a43737e03d050c22ec08238"),
          { path: "special_tokens_map.json", size: null, sha256: null, verify: "size-and-sha256-recorded-on-first-fetch", optional: false },
          pinned("onnx/encoder_model_quantized.onnx", 14691, "024ed5c2f4a2434dd804808632f1f707bc39cacbc95ce670d7a712349a736a1e"),
          pinned("onnx/decoder_model_merged_quantized.onnx", 73060, "e4e410cb6c9ef10830db064c09e5fe3cee1cde509e02cd79f27e5ded3d5cfc34"),
          pinned("onnx/encoder_model.onnx", 36272, "63e8ab1dbcbacbf57c584935dd09b8a7cd78ca1c305ba8ef8135830204be353c", true),
          pinned("onnx/decoder_model_merged.onnx", 153623, "33de1dd9fea16695a2baf31f9c99af0a3454a8f3de7faf788c0dbb516fd597ba", true),
        ],
      },
      {
        id: "tiny-sentiment-3class",
        task: "text-classification",
        default: true,
        description: "3-class sentiment test fixture",
        source: "https://example.invalid/tiny-sentiment-3class",
        revision: "main",
        license: null,
        files: [
          pinned("config.json", 214, "fbf99e04eb598fd5417834a7fe8d82ee88a44b6702cc8a69bc0628fe0b079f5c"),
          pinned("tokenizer.json", 2151, "226d6ad2dac79acca8a0b9e7bacd1d6f8f74a8475e3fb193c2219b062bcad4e9"),
          pinned("tokenizer_config.json", 196, "296fed0aee959854a12fd42e266746f023dbfc3977b2169a5349e34e43a1f0d3"),
          pinned("onnx/model.onnx", 839, "9068117d0edcbe7a17d288abe8a2a020b363856a9e419697672adb71561839e1"),
        ],
      },
    ],
  };
}
