/**
 * @module bench/proc-stat
 * CPU accounting for the benches, read from Linux's /proc (clock ticks, usually 100 per second).
 */
import { readdirSync, readFileSync } from "node:fs";

/** The fields of `/proc/PID/stat` after the command name (index 0 is the state). */
function statFields(pid: number | string): string[] {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
}

/** CPU ticks a process has used (utime + stime, all its threads). */
export function cpuTicks(pid: number): number {
  const f = statFields(pid);
  return Number(f[11]) + Number(f[12]);
}

/**
 * CPU ticks of a PostgreSQL cluster: the postmaster, its reaped children and its live backends.
 * @param postmaster the postmaster's pid; null gives 0 (no cluster to account for)
 */
export function clusterTicks(postmaster: number | null): number {
  if (postmaster === null) return 0;
  const f = statFields(postmaster);
  let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const c = statFields(entry);
      if (Number(c[1]) === postmaster) ticks += Number(c[11]) + Number(c[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks;
}

/** Busy ticks of the whole machine (all cores), from /proc/stat: everything but idle and iowait. */
export function machineBusyTicks(): number {
  // cpu  user nice system idle iowait irq softirq steal …
  const t = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return t[0]! + t[1]! + t[2]! + t[5]! + t[6]! + t[7]!;
}
