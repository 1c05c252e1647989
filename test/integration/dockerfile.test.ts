/**
 * The Dockerfile's build stage, replayed without a Docker engine (scripts/dockerfile-stage.ts):
 * exactly the paths its COPY lines name, its RUN commands (npm ci, the build), and the binary it
 * produces must start and answer /healthz from an empty data directory.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDockerfile, replayStage, stageInstructions } from "../../scripts/dockerfile-stage.ts";
import { REPO_DIR, startServer } from "../helpers/process.ts";

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-docker-stage-"));
// The folder holds a whole node_modules: removing it took over 10 s on a loaded machine.
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }), 120_000);

test("a COPY of a path that does not exist fails the replay, as docker build would", () => {
  const stage = parseDockerfile("FROM x AS build\nCOPY no-such-file ./\n");
  expect(() => replayStage(stageInstructions(stage, "build"), REPO_DIR, fs.mkdtempSync(path.join(os.tmpdir(), "ds-")), {})).toThrow(/does not exist/);
});

test(
  "the build stage builds from exactly what it copies, and the binary starts",
  async () => {
    const stage = stageInstructions(parseDockerfile(fs.readFileSync(path.join(REPO_DIR, "Dockerfile"), "utf8")), "build");
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("EARSHOT_") && !k.startsWith("npm_")));
    replayStage(stage, REPO_DIR, workDir, env);
    const binary = path.join(workDir, "dist", "earshot");
    expect(fs.existsSync(binary)).toBe(true);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ds-data-"));
    const server = await startServer({ dataDir, bin: [binary] });
    try {
      const res = await fetch(`${server.baseUrl}/healthz`);
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
  { timeout: 600_000 },
);
