/**
 * @module runtime/build-plugins
 * Bun bundler plugins that make `bun build --compile` output work on its own (used by
 * scripts/build.ts, never imported by the app). Each one fixes a measured failure of the
 * compiled binary; the failure is named on each plugin.
 */
import path from "node:path";
import type { BunPlugin } from "bun";

const SHARP_STUB = path.join(import.meta.dir, "sharp-stub.ts");

/** Linux CPU names as onnxruntime-node's `bin/napi-v6/linux/<arch>/` folders spell them. */
export type OrtArch = "x64" | "arm64";

/** Reads a file and replaces one exact snippet; a missing snippet fails the build loudly. */
async function patchFile(file: string, from: string, to: string): Promise<string> {
  const source = await Bun.file(file).text();
  if (!source.includes(from)) {
    throw new Error(`build-plugins: ${path.basename(file)} no longer contains ${JSON.stringify(from)}; recheck the patch`);
  }
  return source.replace(from, to);
}

/**
 * `sharp` → runtime/sharp-stub.ts. Without it the binary stops at start-up: sharp's native
 * libvips cannot be embedded, and transformers.js throws when sharp is missing.
 */
export const sharpStubPlugin: BunPlugin = {
  name: "earshot-sharp-stub",
  setup(build) {
    build.onResolve({ filter: /^sharp$/ }, () => ({ path: SHARP_STUB }));
  },
};

/**
 * Makes the ONNX Runtime addon a static part of the bundle, for the target's CPU.
 * - transformers.js loads `onnxruntime-node` through `createRequire(import.meta.url)`, which the
 *   bundler cannot follow: the binary then fails with "Cannot find package 'onnxruntime-node'".
 * - onnxruntime-node requires its addon through a template string (platform/arch at run time);
 *   a literal path lets Bun embed the `.node` file.
 * - runtime/onnxruntime.ts embeds `libonnxruntime.so.1` of linux/x64; other CPUs are redirected.
 */
export function onnxRuntimePlugin(arch: OrtArch): BunPlugin {
  return {
    name: "earshot-onnxruntime",
    setup(build) {
      build.onLoad({ filter: /@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.node\.mjs$/ }, async (args) => ({
        contents: await patchFile(args.path, 'requireFromHere("onnxruntime-node")', 'require("onnxruntime-node")'),
        loader: "js",
      }));
      build.onLoad({ filter: /onnxruntime-node[\\/]dist[\\/]binding\.js$/ }, async (args) => ({
        contents: await patchFile(
          args.path,
          "require(`../bin/napi-v6/${process.platform}/${process.arch}/onnxruntime_binding.node`)",
          `require("../bin/napi-v6/linux/${arch}/onnxruntime_binding.node")`,
        ),
        loader: "js",
      }));
      if (arch !== "x64") {
        build.onResolve({ filter: /^onnxruntime-node\/bin\/napi-v6\/linux\/x64\// }, (args) => ({
          path: Bun.resolveSync(args.path.replace("/linux/x64/", `/linux/${arch}/`), args.importer),
        }));
      }
    },
  };
}

/**
 * Loads `opus-decoder`'s index from a namespace of our own, so that the package's
 * `"sideEffects": false` does not apply to it. Otherwise Bun drops the module behind
 * `OpusDecoderWebWorker` while keeping the index's `assignNames(OpusDecoderWebWorker, …)`, and
 * the binary dies at start-up with "OpusDecoderWebWorker is not defined".
 */
export const opusDecoderPlugin: BunPlugin = {
  name: "earshot-opus-decoder",
  setup(build) {
    build.onResolve({ filter: /^opus-decoder$/ }, (args) => ({
      path: Bun.resolveSync("opus-decoder", args.importer),
      namespace: "earshot-keep-side-effects",
    }));
    build.onLoad({ filter: /.*/, namespace: "earshot-keep-side-effects" }, async (args) => {
      const dir = path.dirname(args.path);
      const source = await Bun.file(args.path).text();
      // Relative imports would resolve against the namespace; make them absolute.
      const contents = source.replace(/from "(\.\/[^"]+)"/g, (_m, rel: string) => `from ${JSON.stringify(path.join(dir, rel))}`);
      return { contents, loader: "js" };
    });
  },
};

const MODULE_URL = /(new Worker\(\s*)?new URL\(\s*(["'])(\.{1,2}\/[^"']+)\2\s*,\s*import\.meta\.url\s*\)/g;

/**
 * Rebases `new URL("./worker.ts", import.meta.url)` onto the executable's root when it names a
 * worker entrypoint. Inside the binary every bundled module shares the main entry's
 * `import.meta.url` (`/$bunfs/root/<name>`), while a worker entry keeps its folder below the
 * entrypoints' common root (`src/ai/worker.ts` → `/$bunfs/root/ai/worker.js`): left alone, the
 * URL points at `/$bunfs/root/worker.ts` and the worker fails with ModuleNotFound. The URL is
 * rewritten to the worker's path relative to `rootDir` ("./ai/worker.ts"), which Bun maps to
 * the entry. `new Worker(new URL(…))` naming a file that is not an entrypoint fails the build.
 * @param rootDir absolute common folder of all entrypoints (e.g. `<repo>/src`)
 * @param workerEntries absolute paths of the worker entrypoints
 */
export function workerUrlPlugin(rootDir: string, workerEntries: readonly string[]): BunPlugin {
  const entries = new Set(workerEntries.map((f) => path.resolve(f)));
  const escapedRoot = rootDir.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return {
    name: "earshot-worker-url",
    setup(build) {
      build.onLoad({ filter: new RegExp(`^${escapedRoot}[\\\\/].*\\.ts$`) }, async (args) => {
        const source = await Bun.file(args.path).text();
        let isChanged = false;
        const contents = source.replace(MODULE_URL, (match, workerCall: string | undefined, quote: string, rel: string) => {
          const target = path.resolve(path.dirname(args.path), rel);
          if (!entries.has(target)) {
            if (workerCall) {
              throw new Error(`${path.relative(rootDir, args.path)}: worker ${rel} is not a build entrypoint (scripts/build.ts)`);
            }
            return match;
          }
          isChanged = true;
          const fromRoot = `./${path.relative(rootDir, target).split(path.sep).join("/")}`;
          return match.replace(`${quote}${rel}${quote}`, JSON.stringify(fromRoot));
        });
        return isChanged ? { contents, loader: "ts" } : undefined; // undefined: Bun loads it as usual
      });
    },
  };
}

/**
 * Embeds the whisper.cpp addon variants (scripts/build-whisper.ts) of the target's CPU. From
 * source, ai/whispercpp/addon-file.ts opens `native/whisper/out/<file>` by a computed path, which
 * the bundler cannot follow; here that module is replaced by one that `require`s each variant by
 * a literal path, so Bun embeds every file and, at run time, extracts and opens only the variant
 * the CPU picks (like onnxruntime's addon). A variant not built (e.g. arm64 from an x86-64
 * machine) is left out and reported as unavailable at run time, so `auto` uses transformers.js.
 * @param files absolute paths of the built `.node` files to embed, by their base names
 */
export function whisperAddonPlugin(files: readonly string[]): BunPlugin {
  const cases = files.map((f) => `    case ${JSON.stringify(path.basename(f))}: return require(${JSON.stringify(f)});`).join("\n");
  const contents = `export function requireAddonFile(file) {
  switch (file) {
${cases}
    default: throw new Error("this build of earshot has no whisper.cpp addon " + file);
  }
}
`;
  return {
    name: "earshot-whisper-addon",
    setup(build) {
      build.onLoad({ filter: /[\\/]ai[\\/]whispercpp[\\/]addon-file\.ts$/ }, () => ({ contents, loader: "js" }));
    },
  };
}
