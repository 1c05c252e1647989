/**
 * @module test/helpers/lan-namespace
 * "Another machine on the LAN" for tests that need a client whose address is not loopback (the
 * console's plain-HTTP refusal, DESIGN §4), on any host, CI included: a network namespace of the
 * test's own joined to this one by a veth pair on a private /30 (10.231.x.y). A server listening
 * on 0.0.0.0 here is reached from the namespace at `hostAddress`, and sees the namespace's address
 * as its peer. `chromiumPath` is a wrapper that runs Chromium inside the namespace
 * (`launchBrowser({ executablePath })`). Needs root and iproute2 (`ip netns`); `close()` deletes
 * the namespace, which deletes the veth pair.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHROMIUM_PATH } from "./browser.ts";

/** A namespace made by {@link createLanNamespace}. */
export interface LanNamespace {
  /** This side's address, as the namespace reaches it. */
  hostAddress: string;
  /** The namespace's address: the peer a server here sees. */
  peerAddress: string;
  /** An executable that runs Debian's Chromium inside the namespace with the arguments it is given. */
  chromiumPath: string;
  close(): void;
}

/** Why a namespace cannot be made here, or null when it can (root and `ip` present). */
export function lanNamespaceUnavailable(): string | null {
  if (process.getuid?.() !== 0) return "needs root to create a network namespace";
  if (spawnSync("ip", ["-V"]).status !== 0) return "needs iproute2 (ip netns)";
  return null;
}

function ip(...args: string[]): void {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")} failed: ${r.stderr || r.error}`);
}

/**
 * Creates the namespace and the veth pair; names and the /30 come from this process's id, so the
 * two engines' suites running at once do not collide.
 * @throws Error when an `ip` command fails (not root, no iproute2, a name already taken)
 */
export function createLanNamespace(): LanNamespace {
  const id = process.pid;
  const ns = `earshot-lan-${id}`;
  const hostIf = `eslh${id % 1_000_000}`;
  const nsIf = `esln${id % 1_000_000}`;
  const base = ((id >> 8) % 64) * 4;
  const hostAddress = `10.231.${id % 256}.${base + 1}`;
  const peerAddress = `10.231.${id % 256}.${base + 2}`;
  // Left over by a run of the same process id that was killed before its close(): ours to remove.
  spawnSync("ip", ["netns", "del", ns]);
  spawnSync("ip", ["link", "del", hostIf]);
  ip("netns", "add", ns);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-lan-"));
  const close = () => {
    spawnSync("ip", ["netns", "del", ns]);
    spawnSync("ip", ["link", "del", hostIf]); // normally gone with the namespace already
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    ip("link", "add", hostIf, "type", "veth", "peer", "name", nsIf);
    ip("link", "set", nsIf, "netns", ns);
    ip("addr", "add", `${hostAddress}/30`, "dev", hostIf);
    ip("link", "set", hostIf, "up");
    ip("-n", ns, "addr", "add", `${peerAddress}/30`, "dev", nsIf);
    ip("-n", ns, "link", "set", nsIf, "up");
    ip("-n", ns, "link", "set", "lo", "up");
  } catch (err) {
    close();
    throw err;
  }
  const chromiumPath = path.join(dir, "chromium-in-namespace");
  fs.writeFileSync(chromiumPath, `#!/bin/sh\nexec ip netns exec ${ns} ${CHROMIUM_PATH} "$@"\n`, { mode: 0o755 });
  return { hostAddress, peerAddress, chromiumPath, close };
}
