import { describe, expect, it } from "vitest";
import { createThreadNice, type ThreadNiceDeps } from "@/server/image/isolation/thread-nice";

/** A process whose threads the test lists, recording each nice value set. */
function threads(
  initial: number[],
  options: { ended?: number[]; unlisted?: boolean; niceness?: Record<number, number> } = {},
) {
  let alive = [...initial];
  const set: Array<[number, number]> = [];
  const deps: ThreadNiceDeps = {
    threadIds: () => (options.unlisted ? null : [...alive]),
    getPriority: (id) => {
      if (options.ended?.includes(id)) throw new Error("ESRCH");
      return options.niceness?.[id] ?? 0;
    },
    setPriority: (id, nice) => {
      if (options.ended?.includes(id)) throw new Error("ESRCH");
      set.push([id, nice]);
    },
    mainId: 1,
  };
  return { deps, set, live: (ids: number[]) => void (alive = ids) };
}

describe("the server's threads niced for its transforms", () => {
  it("nices every thread but the main one, once, and each new thread at the next sweep", () => {
    const process = threads([1, 2, 3]);
    const sweep = createThreadNice(10, process.deps);
    sweep();
    expect(process.set).toEqual([
      [2, 10],
      [3, 10],
    ]);
    process.live([1, 2, 3, 4]);
    sweep();
    sweep();
    expect(process.set).toEqual([
      [2, 10],
      [3, 10],
      [4, 10],
    ]);
  });

  it("nices an id the system handed out again after its thread ended, and skips a thread that ends while listed", () => {
    const process = threads([1, 2, 3], { ended: [3] });
    const sweep = createThreadNice(10, process.deps);
    sweep();
    process.live([1]);
    sweep();
    process.live([1, 2]);
    sweep();
    expect(process.set).toEqual([
      [2, 10],
      [2, 10],
    ]);
  });

  it("never raises a thread that is already nicer (a server started under nice)", () => {
    const process = threads([1, 2, 3, 4], { niceness: { 2: 15, 3: 10 } });
    createThreadNice(10, process.deps)();
    expect(process.set).toEqual([[4, 10]]);
  });

  it("does nothing at nice 0, or where the system does not list a process's threads", () => {
    const atZero = threads([1, 2]);
    createThreadNice(0, atZero.deps)();
    const unlisted = threads([1, 2], { unlisted: true });
    createThreadNice(10, unlisted.deps)();
    expect([...atZero.set, ...unlisted.set]).toEqual([]);
  });
});
