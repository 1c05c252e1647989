/**
 * @module scripts/dockerfile-stage
 * Proves the Dockerfile's build stage without a container engine, in the test suite (the whole
 * image is built and run by scripts/container-build.sh, with podman, outside it):
 * reads the stage's `WORKDIR`, `ENV`, `COPY` and `RUN` instructions, copies exactly the paths the
 * `COPY` lines name from the repository into an empty folder, and runs the `RUN` commands there
 * with the stage's environment. A file the image needs but the `COPY` lines forget makes a `RUN`
 * fail here as it would in `docker build`.
 *
 * Usage: `npx bun scripts/dockerfile-stage.ts [--stage build]` prints the folder (left in place) and
 * the binary it produced. `test/integration/dockerfile.test.ts` runs it and starts the binary.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

/** One instruction of a Dockerfile, its continuation lines joined. */
export type DockerInstruction = { keyword: string; args: string };

/** Splits a Dockerfile into instructions: comments dropped, `\` continuations joined. */
export function parseDockerfile(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (!pending && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      continue;
    }
    const full = (pending + line).trim();
    pending = "";
    if (!full || full.startsWith("#")) continue;
    const m = /^(\S+)\s*(.*)$/s.exec(full)!;
    out.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim() });
  }
  return out;
}

/**
 * The instructions of one stage: from `FROM … AS <name>` up to the next `FROM`.
 * @throws Error when the stage does not exist
 */
export function stageInstructions(all: DockerInstruction[], name: string): DockerInstruction[] {
  const start = all.findIndex((i) => i.keyword === "FROM" && new RegExp(`\\sAS\\s+${name}$`, "i").test(i.args));
  if (start < 0) throw new Error(`the Dockerfile has no stage named ${name}`);
  const end = all.findIndex((i, n) => n > start && i.keyword === "FROM");
  return all.slice(start + 1, end < 0 ? undefined : end);
}

/** `ENV A=1 B=2` (or the legacy `ENV A 1`) as pairs. */
function parseEnv(args: string): Record<string, string> {
  if (!args.includes("=")) {
    const [key, ...rest] = args.split(/\s+/);
    return { [key!]: rest.join(" ") };
  }
  const env: Record<string, string> = {};
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) env[m[1]!] = m[3] ?? m[2]!;
  return env;
}

/**
 * Replays a build stage in `workDir` (an empty folder standing for the image's `WORKDIR`).
 * `COPY` sources are read from `repoDir`; a missing source fails as `docker build` would.
 * @returns the stage's environment after its `ENV` lines
 * @throws Error naming the instruction that failed
 */
export function replayStage(stage: DockerInstruction[], repoDir: string, workDir: string, baseEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = Object.fromEntries(Object.entries(baseEnv).filter((e): e is [string, string] => e[1] !== undefined));
  for (const { keyword, args } of stage) {
    if (keyword === "WORKDIR") continue; // workDir stands for it
    if (keyword === "ENV") Object.assign(env, parseEnv(args));
    else if (keyword === "COPY") {
      if (args.startsWith("--")) throw new Error(`COPY flags are not replayed: COPY ${args}`);
      const parts = args.split(/\s+/);
      const dest = parts.pop()!;
      for (const src of parts) {
        const from = path.join(repoDir, src);
        if (!fs.existsSync(from)) throw new Error(`COPY ${args}: ${src} does not exist`);
        const isDir = fs.statSync(from).isDirectory();
        const to = isDir || !dest.endsWith("/") ? path.join(workDir, dest) : path.join(workDir, dest, path.basename(src));
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.cpSync(from, to, { recursive: true });
      }
    } else if (keyword === "RUN") {
      const r = spawnSync("bash", ["-euo", "pipefail", "-c", args], { cwd: workDir, env, stdio: "inherit" });
      if (r.status !== 0) throw new Error(`RUN ${args} exited with ${r.status ?? r.signal}`);
    } else if (keyword !== "ARG" && keyword !== "LABEL") {
      throw new Error(`${keyword} is not replayed by this script`);
    }
  }
  return env;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { stage: { type: "string", default: "build" } } });
  const repoDir = path.resolve(import.meta.dir, "..");
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-docker-stage-"));
  const stage = stageInstructions(parseDockerfile(fs.readFileSync(path.join(repoDir, "Dockerfile"), "utf8")), values.stage!);
  // A build container has no EARSHOT_* settings and no npm cache of this checkout beyond npm's own.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("EARSHOT_") && !k.startsWith("npm_")));
  replayStage(stage, repoDir, workDir, env);
  console.log(JSON.stringify({ work_dir: workDir, binary: path.join(workDir, "dist", "earshot") }));
}
