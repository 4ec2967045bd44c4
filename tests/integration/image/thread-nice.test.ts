import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
/** Only Linux lists a process's threads (in /proc) and nices one thread by its id. */
const linux = process.platform === "linux";
const needs = linux ? "" : " [needs Linux: a process's threads are listed in /proc]";

/**
 * Real threads, in a process of their own (nicing the test runner's would slow every other file): the
 * libuv pool and the libvips threads sharp starts, swept once, and those libvips starts after it.
 */
const script = `
  const { readdirSync, readFileSync } = await import("node:fs");
  const { default: sharp } = await import("sharp");
  const { createThreadNice } = await import("./src/server/image/isolation/thread-nice.ts");
  const threads = () => readdirSync("/proc/self/task").map((id) => {
    const stat = readFileSync("/proc/self/task/" + id + "/stat", "utf8");
    // Field 19 of stat, counted after the command name's closing parenthesis (fields 1 and 2).
    return { id: Number(id), nice: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) };
  });
  sharp.concurrency(2);
  sharp.cache(false);
  const image = () => sharp({ create: { width: 2000, height: 2000, channels: 3, background: "#336699" } })
    .resize(300).webp().toBuffer();
  await image();
  const before = threads();
  createThreadNice(10)();
  const swept = threads();
  await Promise.all(Array.from({ length: 8 }, image));
  console.log(JSON.stringify({ main: process.pid, before, swept, after: threads() }));`;

interface Thread {
  id: number;
  nice: number;
}

describe(`the server's threads niced for its transforms${needs}`, () => {
  it.skipIf(!linux)(
    "nices every thread but the main one, and the libvips threads started after take their nice",
    async () => {
      const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
        timeout: 60_000,
      });
      const { main, before, swept, after } = JSON.parse(stdout) as Record<"before" | "swept" | "after", Thread[]> & {
        main: number;
      };
      const others = (threads: Thread[]) => threads.filter((thread) => thread.id !== main);
      // Relative to the process's own nice value: CI may itself run under nice.
      const base = before.find((thread) => thread.id === main)!.nice;
      const niced = Math.max(base, 10);
      expect(before.every((thread) => thread.nice === base)).toBe(true);
      expect(swept.find((thread) => thread.id === main)?.nice).toBe(base);
      expect(new Set(others(swept).map((thread) => thread.nice))).toEqual(new Set([niced]));
      // New libvips threads came with the jobs after the sweep, niced by their creators, not by a sweep.
      const born = others(after).filter((thread) => !swept.some((old) => old.id === thread.id));
      expect(born.length).toBeGreaterThan(0);
      expect(new Set(born.map((thread) => thread.nice))).toEqual(new Set([niced]));
      expect(after.find((thread) => thread.id === main)?.nice).toBe(base);
    },
  );
});
