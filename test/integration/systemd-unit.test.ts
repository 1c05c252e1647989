/**
 * `deploy/earshot.service` (issue 26; docs/operations.md "systemd"): `systemd-analyze verify`
 * accepts it without a single warning (it exits 0 even for unknown keys and bad values, so its
 * output is checked too), the hardening directives are there, and the offline security analysis
 * rates it "OK" or better. ExecStart is pointed at an executable in a temporary folder, as verify
 * checks that the command exists on this machine. Skipped only where systemd-analyze is absent.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_DIR } from "../helpers/process.ts";

const ANALYZE = "/usr/bin/systemd-analyze";
const hasAnalyze = fs.existsSync(ANALYZE);
const UNIT = fs.readFileSync(path.join(REPO_DIR, "deploy", "earshot.service"), "utf8");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-unit-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The unit with ExecStart's binary at an executable stand-in, written as `<dir>/<name>`. */
function unitFile(name: string, text = UNIT): string {
  const bin = path.join(dir, "earshot");
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text.replace("ExecStart=/usr/local/bin/earshot serve", `ExecStart=${bin} serve`));
  return file;
}

function analyze(args: string[]): { code: number; out: string } {
  const r = Bun.spawnSync([ANALYZE, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, SYSTEMD_COLORS: "0", SYSTEMD_PAGER: "" } });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

test.skipIf(!hasAnalyze)("systemd-analyze verify accepts deploy/earshot.service without a warning (skips where systemd-analyze is absent)", () => {
  expect(UNIT).toContain("ExecStart=/usr/local/bin/earshot serve");
  expect(analyze(["verify", unitFile("earshot.service")])).toEqual({ code: 0, out: "" });
  // The check can fail: a misspelt key is reported (verify still exits 0, hence the output check).
  const broken = analyze(["verify", unitFile("broken.service", UNIT.replace("ProtectSystem=strict", "ProtectSytem=strict"))]);
  expect(broken.out).toContain("Unknown key 'ProtectSytem'");
});

test.skipIf(!hasAnalyze)(
  "the unit is hardened: a dedicated user, a read-only system but the data directory, no privileges (skips where systemd-analyze is absent)",
  () => {
    const directives = new Set(UNIT.split("\n").filter((l) => /^[A-Z]\w*=/.test(l)));
    for (const d of [
      "User=earshot",
      "ProtectSystem=strict",
      "ReadWritePaths=/var/lib/earshot",
      "StateDirectory=earshot",
      "NoNewPrivileges=yes",
      "ProtectHome=yes",
      "PrivateTmp=yes",
      "PrivateDevices=yes",
      "CapabilityBoundingSet=",
      "SystemCallFilter=@system-service",
      "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
    ]) {
      expect(directives.has(d)).toBe(true);
    }
    const security = analyze(["security", "--offline=true", unitFile("earshot.service")]);
    const level = /Overall exposure level for earshot\.service: ([\d.]+) (\w+)/.exec(security.out);
    expect(level).not.toBeNull();
    expect(Number(level![1])).toBeLessThanOrEqual(2);
    expect(["OK", "SAFE"]).toContain(level![2]!);
  },
);
