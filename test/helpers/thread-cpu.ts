/**
 * @module test/helpers/thread-cpu
 * CPU time a process's threads have used, read from `/proc/<pid>/task/<tid>/stat` (Linux), by
 * thread name. Lets a test tell WHICH thread did some work (the HTTP thread, or Bun's `Worker`
 * threads that run inference) from the kernel's own accounting, not from wall-clock timings.
 */
import fs from "node:fs";

/**
 * CPU time (user + system, in clock ticks, 1/100 s on Linux) of `pid`'s threads, summed by
 * thread name (`comm`, e.g. `Worker` for a Bun Worker, the executable's name for the main thread).
 * Threads that exit meanwhile are skipped.
 */
export function cpuTicksByThreadName(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      // Fields after "(comm) ": state is the 1st, utime the 12th, stime the 13th (proc(5)).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      byName.set(name, (byName.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return byName;
}

/** CPU ticks of `pid`'s main thread (the thread whose id is the process id: Bun's HTTP and JavaScript thread). */
export function mainThreadTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}
