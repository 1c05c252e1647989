/**
 * @module scripts/pg-cluster
 * A throw-away PostgreSQL cluster for tests and benches, from Debian's `postgresql` package
 * (installed with apt-get when missing and running as root). `initdb` into a fresh temporary
 * directory, a random loopback port, run as the unprivileged `postgres` user when we are root
 * (initdb refuses root, TOOLCHAIN.md), durability switched off (the cluster dies with the run).
 *
 *   bun scripts/pg-cluster.ts start   → prints `{"url": "postgres://…", "dir": "/tmp/…"}` and leaves it running
 *   bun scripts/pg-cluster.ts stop DIR → stops that cluster and removes its directory
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A running cluster: the superuser URL of its `postgres` database and its data directory. */
export interface PgCluster {
  url: string;
  dir: string;
}

/** The newest installed PostgreSQL's bin directory, or null. */
function binDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return null;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, "bin", "initdb")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0]!, "bin") : null;
}

/**
 * Installs Debian's `postgresql` when no server binaries are present.
 * @throws Error when missing and not root (names the apt-get command to run)
 */
export function ensurePostgresInstalled(): string {
  let bin = binDir();
  if (bin) return bin;
  if (process.getuid?.() !== 0) throw new Error("PostgreSQL is missing: sudo apt-get install -y postgresql");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  const r = spawnSync("apt-get", ["install", "-y", "-qq", "postgresql"], { stdio: "inherit", env });
  bin = binDir();
  if (r.status !== 0 || !bin) throw new Error("apt-get install postgresql failed");
  return bin;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL program, as `postgres` when we are root. */
function run(bin: string, program: string, args: string[]): void {
  const exe = path.join(bin, program);
  const asRoot = process.getuid?.() === 0;
  const r = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", exe, ...args], { encoding: "utf8" }) : spawnSync(exe, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${program} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/**
 * Creates and starts a cluster.
 * @returns its URL (superuser `postgres`, trust authentication, database `postgres`) and directory
 * @throws Error when PostgreSQL cannot be installed or does not start
 */
export async function startCluster(): Promise<PgCluster> {
  const bin = ensurePostgresInstalled();
  // A folder the postgres user can reach: /tmp itself is world-searchable; mkdtemp makes 0700.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-pg-"));
  if (process.getuid?.() === 0) spawnSync("chown", ["postgres:postgres", dir]);
  const data = path.join(dir, "data");
  run(bin, "initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=400",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c shared_buffers=128MB",
  ].join(" ");
  fs.writeFileSync(path.join(dir, "options"), options);
  run(bin, "pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "start"]);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir };
}

/**
 * Stops a cluster's server but keeps its data, as an outage would (`pg_ctl stop -m fast`: open
 * connections are ended); {@link resumeCluster} starts it again on the same port.
 * @throws Error when pg_ctl fails
 */
export function pauseCluster(dir: string): void {
  const bin = ensurePostgresInstalled();
  run(bin, "pg_ctl", ["-D", path.join(dir, "data"), "-m", "fast", "-w", "stop"]);
}

/**
 * Starts a cluster stopped by {@link pauseCluster} again, with the same port and settings.
 * @throws Error when pg_ctl fails (e.g. the port was taken meanwhile)
 */
export function resumeCluster(dir: string): void {
  const bin = ensurePostgresInstalled();
  const options = fs.readFileSync(path.join(dir, "options"), "utf8");
  run(bin, "pg_ctl", ["-D", path.join(dir, "data"), "-o", options, "-l", path.join(dir, "log"), "-w", "start"]);
}

/** Stops a cluster started by {@link startCluster} and removes its directory (errors ignored). */
export function stopCluster(dir: string): void {
  const bin = binDir();
  if (bin && fs.existsSync(path.join(dir, "data"))) {
    try {
      run(bin, "pg_ctl", ["-D", path.join(dir, "data"), "-m", "immediate", "-w", "stop"]);
    } catch {
      // already stopped
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

if (import.meta.main) {
  const [command, arg] = process.argv.slice(2);
  if (command === "start") {
    console.log(JSON.stringify(await startCluster()));
  } else if (command === "stop" && arg) {
    stopCluster(arg);
  } else {
    console.error("usage: bun scripts/pg-cluster.ts start | stop DIR");
    process.exit(2);
  }
}
