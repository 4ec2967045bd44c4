import { readdirSync, readFileSync } from "node:fs";

/** Peak resident memory (VmHWM) of a process and its descendants, in bytes (Linux /proc). */
export function peakRssOfTree(rootPid: number): number {
  return treeOf(rootPid).reduce((sum, pid) => sum + readKb(pid, "VmHWM") * 1024, 0);
}

/** Peak resident memory (VmHWM) of the given processes, in bytes. */
export function peakRssOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + readKb(pid, "VmHWM") * 1024, 0);
}

/** Current resident memory (VmRSS) of a process and its descendants, in bytes. */
export function rssOfTree(rootPid: number): number {
  return treeOf(rootPid).reduce((sum, pid) => sum + readKb(pid, "VmRSS") * 1024, 0);
}

/** CPU time (user + system) consumed so far by a process and its descendants, in milliseconds. */
export function cpuMsOfTree(rootPid: number): number {
  const ticksPerSecond = 100; // USER_HZ on Linux
  return treeOf(rootPid).reduce((sum, pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime + stime, and cutime + cstime: the children it has reaped (recycled transform processes)
      // would otherwise take their CPU with them.
      const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number) as [number, number, number, number];
      return sum + ((utime + stime + cutime + cstime) * 1000) / ticksPerSecond;
    } catch {
      return sum;
    }
  }, 0);
}

/** CPU time of one process (all its threads), without its children, in milliseconds. */
export function cpuMsOfProcess(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [utime, stime] = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .slice(11, 13)
      .map(Number) as [number, number];
    return ((utime + stime) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** The processes of a tree whose command line matches `pattern` (the embedded database's, say). */
export function processesOfTree(rootPid: number, pattern: RegExp): number[] {
  return treeOf(rootPid).filter((pid) => {
    try {
      return pattern.test(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {
      return false;
    }
  });
}

function treeOf(rootPid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      /* the process ended meanwhile */
    }
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

function readKb(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Files mapped by a process tree whose path matches `pattern` (Linux /proc/PID/maps): which sharp
 * binding and which libvips a server really loaded, whatever its package.json says.
 */
export function mappedFilesOfTree(rootPid: number, pattern: RegExp): string[] {
  const files = new Set<string>();
  for (const pid of treeOf(rootPid)) {
    let maps = "";
    try {
      maps = readFileSync(`/proc/${pid}/maps`, "utf8");
    } catch {
      continue;
    }
    for (const line of maps.split("\n")) {
      const file = line.slice(line.indexOf("/"));
      if (line.includes("/") && pattern.test(file)) files.add(file);
    }
  }
  return [...files].sort();
}

/**
 * CPU time the whole machine has spent busy so far (all cores, /proc/stat), in milliseconds. On a shared
 * machine, busy time during a run minus the run's own processes is load from elsewhere.
 */
export function machineBusyMs(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
}
